/**
 * TEMPLATE_PARTIAL_SCALAR: `<%= %>` prints a whole YAML scalar (a string becomes a JSON double-quoted
 * string), so a tag that is only part of a scalar renders something other than it looks like:
 * `image: repo/<%= tag %>` keeps the quotes in the image name, `v: pre-<%= "a #b" %>` turns ` #b"` into a
 * comment. This reads a template as YAML text in which every tag is one marker character and warns about
 * `<%=` markers that share a scalar with anything else, or sit inside a quoted string.
 *
 * A heuristic that prefers silence: a scalar that also holds a scriptlet or a raw `<%-` tag (control flow
 * or output it cannot see), and a line whose YAML it cannot follow, are not reported.
 */
import type { Framework, TemplateFile } from './model.js';
import { problem, type Problem } from './problems.js';

/** Stands for one `<%= %>` tag in the skeleton text. */
const PRINT = '\uE000';
/** Stands for a `<%-` raw tag or a `<% %>` scriptlet: output or control flow the lint cannot see. */
const OPAQUE = '\uE001';

interface Skeleton {
  text: string;
  /** Skeleton index of each PRINT marker -> offset of its `<%` in the template text. */
  origins: Map<number, number>;
}

/** The template with each tag replaced by a marker and comments `<%# %>` removed (they print nothing). */
function skeleton(text: string): Skeleton {
  let out = '';
  const origins = new Map<number, number>();
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('<%', i);
    if (open < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, open);
    if (text[open + 2] === '%') {
      // `<%%` prints a literal `<%`.
      out += '<%';
      i = open + 3;
      continue;
    }
    const close = text.indexOf('%>', open + 2);
    if (close < 0) {
      // Unterminated tag: compiling the template reports it; nothing after it can be read as YAML.
      break;
    }
    const kind = text[open + 2];
    if (kind === '=') {
      origins.set(out.length, open);
      out += PRINT;
    } else if (kind !== '#') out += OPAQUE;
    i = close + 2;
  }
  return { text: out, origins };
}

/** A scalar found in the skeleton: [start, end), quotes included for a quoted one. */
interface Scalar {
  start: number;
  end: number;
  quoted: boolean;
}

const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r';
const isBlankOrEnd = (c: string | undefined): boolean => c === undefined || c === '\n' || isBlank(c);
const isFlowIndicator = (c: string | undefined): boolean => c === ',' || c === '[' || c === ']' || c === '{' || c === '}';

type Context = 'block' | 'flow';

/**
 * Finds the scalars of a YAML text, line by line in block context; flow collections and quoted strings
 * may span lines. Block scalar (`|`, `>`) content lines count as one scalar each.
 */
class ScalarScanner {
  readonly scalars: Scalar[] = [];
  /** Set by `node` when it read a block scalar header (`|`, `>`). */
  private sawBlockHeader = false;

  constructor(private readonly s: string) {}

  scan(): Scalar[] {
    const s = this.s;
    /**
     * Lines indented beyond `parent` belong to the line before: block scalar content (each line one
     * scalar, `keep`), or the rest of a value this scanner could not follow (skipped, to stay silent).
     */
    let nested: { parent: number; keep: boolean } | undefined;
    let i = 0;
    while (i < s.length) {
      const indent = this.spaces(i) - i;
      const start = i + indent;
      const end = this.lineEnd(start);
      if (nested !== undefined) {
        const content = s.slice(start, end).trim();
        if (content === '') {
          i = end + 1;
          continue;
        }
        if (indent > nested.parent && !(indent === 0 && /^(---|\.\.\.)(\s|$)/.test(content))) {
          if (nested.keep) this.scalars.push({ start, end: this.trimEnd(start, end), quoted: false });
          i = end + 1;
          continue;
        }
        nested = undefined;
      }
      const mark = this.scalars.length;
      const line = this.blockLine(start, indent);
      if (line === undefined) {
        // YAML this scanner cannot follow: say nothing about it or the lines nested under it.
        this.scalars.length = mark;
        nested = { parent: indent, keep: false };
        i = end + 1;
        continue;
      }
      // Block scalar content (`|`, `>`) is text of its own language (a config file, a script, JSON):
      // a quoted string printed there may be exactly what the author wants, so it is not judged.
      nested = line.blockParent === undefined ? undefined : { parent: line.blockParent, keep: false };
      i = this.lineEnd(line.next) + 1;
    }
    return this.scalars;
  }

  /** One block-context line: `---`, `- ` entries, `key:`, a value. Returns where it stopped reading. */
  private blockLine(start: number, col: number): { next: number; blockParent: number | undefined } | undefined {
    const s = this.s;
    let p = start;
    let parent = col - 1;
    if (col === 0 && /^(---|\.\.\.)$/.test(s.slice(p, p + 3)) && isBlankOrEnd(s[p + 3])) p = this.spaces(p + 3);
    else if (col === 0 && s[p] === '%') return { next: p, blockParent: undefined };
    // Sequence entries and explicit keys/values, possibly several on one line (`- - x`, `- ? k`).
    while ((s[p] === '-' || s[p] === '?' || s[p] === ':') && isBlankOrEnd(s[p + 1])) {
      parent = this.column(p);
      p = this.spaces(p + 1);
    }
    const keyStart = p;
    const key = this.node(keyStart, 'block');
    if (key === undefined) return undefined;
    if (this.sawBlockHeader) return { next: key, blockParent: parent };
    p = this.spaces(key);
    if (s[p] !== ':' || !isBlankOrEnd(s[p + 1])) return { next: p, blockParent: undefined };
    // What we read was a key: the value follows on the same line, if anywhere; block scalar content
    // belongs to it while indented beyond the key.
    parent = this.column(keyStart);
    const value = this.node(this.spaces(p + 1), 'block');
    if (value === undefined) return undefined;
    return { next: value, blockParent: this.sawBlockHeader ? parent : undefined };
  }

  /** One node at `p` (after optional `!tag` / `&anchor` properties); returns where it ends. */
  private node(start: number, ctx: Context): number | undefined {
    const s = this.s;
    this.sawBlockHeader = false;
    let p = start;
    while (s[p] === '!' || s[p] === '&') {
      while (!isBlankOrEnd(s[p]) && !(ctx === 'flow' && isFlowIndicator(s[p]))) p++;
      p = this.spaces(p);
    }
    const c = s[p];
    if (c === undefined || c === '\n' || c === '#') return p;
    if (c === '[' || c === '{') return this.flow(p);
    if (c === '"' || c === "'") return this.quoted(p);
    if (ctx === 'block' && (c === '|' || c === '>')) {
      this.sawBlockHeader = true;
      return this.lineEnd(p);
    }
    if (c === '*') {
      while (!isBlankOrEnd(s[p]) && !(ctx === 'flow' && isFlowIndicator(s[p]))) p++;
      return p;
    }
    return this.plain(p, ctx);
  }

  private quoted(start: number): number | undefined {
    const s = this.s;
    const q = s[start];
    for (let j = start + 1; j < s.length; j++) {
      const c = s[j];
      if (q === '"' && c === '\\') j++;
      else if (c === q && q === "'" && s[j + 1] === "'") j++;
      else if (c === q) {
        this.scalars.push({ start, end: j + 1, quoted: true });
        return j + 1;
      }
    }
    return undefined;
  }

  private plain(start: number, ctx: Context): number {
    const s = this.s;
    let j = start;
    for (; j < s.length; j++) {
      const c = s[j];
      if (c === '\n' || (c === '#' && isBlank(s[j - 1]))) break;
      if (ctx === 'flow' && isFlowIndicator(c)) break;
      if (c === ':') {
        const next = s[j + 1];
        if (isBlankOrEnd(next)) break;
        // In flow context a JSON-like key (a printed string is one) may be followed by `:` directly.
        if (ctx === 'flow' && (isFlowIndicator(next) || s.slice(start, j).trim() === PRINT)) break;
      }
    }
    this.scalars.push({ start, end: this.trimEnd(start, j), quoted: false });
    return j;
  }

  /** A flow collection `[...]` or `{...}` from its opening bracket; returns the index after its closing one. */
  private flow(start: number): number | undefined {
    const s = this.s;
    const closer = s[start] === '[' ? ']' : '}';
    let j = start + 1;
    for (;;) {
      j = this.flowBlanks(j);
      const c = s[j];
      if (c === undefined || c === ']' || c === '}') return c === closer ? j + 1 : undefined;
      if (c === ',') {
        j++;
        continue;
      }
      if (c === '?' && isBlankOrEnd(s[j + 1])) j = this.flowBlanks(j + 1);
      const key = this.node(j, 'flow');
      if (key === undefined) return undefined;
      j = this.flowBlanks(key);
      if (s[j] === ':') {
        j = this.flowBlanks(j + 1);
        if (s[j] !== ',' && s[j] !== closer) {
          const value = this.node(j, 'flow');
          if (value === undefined) return undefined;
          j = this.flowBlanks(value);
        }
      }
      if (s[j] === closer) return j + 1;
      if (s[j] !== ',') return undefined;
      j++;
    }
  }

  /** Skips blanks, line breaks and comments inside a flow collection. */
  private flowBlanks(from: number): number {
    const s = this.s;
    let j = from;
    while (j < s.length) {
      const c = s[j];
      if (c === '\n' || isBlank(c)) j++;
      else if (c === '#' && (j === 0 || isBlankOrEnd(s[j - 1]))) j = this.lineEnd(j);
      else break;
    }
    return j;
  }

  private spaces(from: number): number {
    let j = from;
    while (isBlank(this.s[j])) j++;
    return j;
  }

  private lineEnd(from: number): number {
    const j = this.s.indexOf('\n', from);
    return j < 0 ? this.s.length : j;
  }

  private trimEnd(start: number, end: number): number {
    let j = end;
    while (j > start && isBlank(this.s[j - 1])) j--;
    return j;
  }

  private column(p: number): number {
    return p - (this.s.lastIndexOf('\n', p - 1) + 1);
  }
}

const MAX_SHOWN = 60;

/** The scalar as the author wrote it, tags abbreviated, for the message. */
function shown(text: string): string {
  const s = text.replace(/\s*\n\s*/g, ' ').split(PRINT).join('<%= ... %>');
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN - 3)}...` : s;
}

/** Problems for one template: one warning per `<%=` tag that is only part of a scalar. */
export function partialScalarProblems(t: TemplateFile): Problem[] {
  const sk = skeleton(t.text);
  const out: Problem[] = [];
  for (const sc of new ScalarScanner(sk.text).scan()) {
    const text = sk.text.slice(sc.start, sc.end);
    // A whole plain scalar that is exactly one tag is what `<%=` is for; a scriptlet or raw tag in the
    // scalar may make it whole at render time (if/else around two tags), so it is not judged.
    if (!text.includes(PRINT) || text.includes(OPAQUE) || (!sc.quoted && text.trim() === PRINT)) continue;
    const message = sc.quoted
      ? `<%= %> is inside a quoted YAML string (${shown(text)}): it prints a string as a double-quoted YAML value, so the quotes nest; drop the quotes and build the whole value inside one tag: <%= 'pre-' + x %>`
      : `<%= %> is part of a larger scalar ("${shown(text)}"): a string prints as a double-quoted YAML value, so the result keeps the quotes (numbers and booleans print plain); build the whole value inside one tag: <%= 'pre-' + x %>`;
    for (let k = text.indexOf(PRINT); k >= 0; k = text.indexOf(PRINT, k + 1)) {
      const at = sk.origins.get(sc.start + k);
      if (at === undefined) continue;
      const line = t.text.slice(0, at).split('\n').length;
      out.push(problem({ code: 'TEMPLATE_PARTIAL_SCALAR', severity: 'warning', file: t.file, line, column: at - t.text.lastIndexOf('\n', at - 1), message }));
    }
  }
  return out;
}

/** Template lint warnings of every template of a framework version. */
export function templateLintProblems(fw: Framework): Problem[] {
  return [...fw.templates.values()].flatMap(partialScalarProblems);
}
