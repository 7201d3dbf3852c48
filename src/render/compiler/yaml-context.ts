/**
 * Works out the YAML context of every `<%= %>` tag from the template text, as Go's html/template does
 * for HTML. It reads a skeleton of the template: the text the template prints for sure, with each
 * `<%=` tag as one PRINT character and each raw `<%-` tag as one OPAQUE character (scriptlets and
 * comments print nothing and are left out; their positions are kept to refuse them inside a scalar).
 * Every print gets exactly one context, or a located error: nothing is ever printed unescaped.
 *
 * Contexts: a whole plain scalar (value, item, key; block or flow), part of a plain scalar or of a
 * single-quoted scalar (a group: the whole scalar is decided at render time), inside a double-quoted
 * scalar, inside a block scalar (with the content indentation), in a comment.
 */

export const PRINT = '\uE000';
export const OPAQUE = '\uE001';

export type PrintContext =
  /** The whole scalar is the tag. `adjacent`: a flow key followed directly by `:` (must be JSON-like). */
  | { kind: 'plain'; flow: boolean; key: boolean; adjacent: boolean }
  | { kind: 'group'; group: number }
  | { kind: 'double' }
  /** Block scalar content; `indent` is the content indentation; `first`: the tag starts the first content line and the header has no indentation indicator. */
  | { kind: 'block'; indent: number; first: boolean }
  | { kind: 'comment' };

/** A scalar made of several pieces, decided as a whole at render time: [start, end) of the skeleton. */
export interface ScalarGroup {
  start: number;
  end: number;
  style: 'plain' | 'single';
  flow: boolean;
  key: boolean;
  /** Scriptlets inside (an if/else between tags): the scalar's text is judged after it is printed. */
  dynamic: boolean;
}

export interface ContextError {
  /** Skeleton offset of the print the error is about. */
  at: number;
  message: string;
}

export interface ContextAnalysis {
  /** Skeleton offset of each PRINT -> its context. */
  contexts: Map<number, PrintContext>;
  groups: ScalarGroup[];
  errors: ContextError[];
}

const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r';
const isBlankOrEnd = (c: string | undefined): boolean => c === undefined || c === '\n' || isBlank(c);
const isFlowIndicator = (c: string | undefined): boolean => c === ',' || c === '[' || c === ']' || c === '{' || c === '}';

/** How a content line ended, for the line after it. */
type LineEnd =
  /** `key:`, `-`, `---` or the start: the next, more indented line is this node's value. */
  | { kind: 'open'; parent: number }
  /** A plain scalar value: a more indented lone line would continue it. */
  | { kind: 'plain'; hadPrint: boolean; parent: number }
  | { kind: 'closed' };

interface NodeResult {
  end: number;
  /** A block scalar header was read; its content belongs to `parent`. */
  blockHeader?: { explicit: number | undefined };
  kind: 'empty' | 'plain' | 'quoted' | 'flow' | 'alias' | 'header' | 'opaque';
  hasPrint: boolean;
}

export function analyzeYamlContexts(skeleton: string, scriptlets: readonly number[]): ContextAnalysis {
  return new Scanner(skeleton, scriptlets).run();
}

class Scanner {
  private readonly contexts = new Map<number, PrintContext>();
  private readonly groups: ScalarGroup[] = [];
  private readonly errors: ContextError[] = [];

  constructor(
    private readonly s: string,
    private readonly scriptlets: readonly number[],
  ) {}

  run(): ContextAnalysis {
    const s = this.s;
    let block: { parent: number; indent: number | undefined; explicit: boolean } | undefined;
    let prev: LineEnd = { kind: 'open', parent: -1 };
    let i = 0;
    while (i <= s.length) {
      const end = this.lineEnd(i);
      const first = this.spaces(i);
      const indent = first - i;
      const empty = first >= end || (s[first] === '\r' && first + 1 >= end);
      if (block !== undefined) {
        if (empty || this.opaqueOnly(first, end)) {
          i = end + 1;
          continue;
        }
        if (indent > block.parent && !(indent === 0 && this.documentMarker(first))) {
          if (block.indent === undefined) {
            block.indent = indent;
            if (s[first] === PRINT && !block.explicit) this.set(first, { kind: 'block', indent, first: true });
          }
          for (let p = first; p < end; p++) if (s[p] === PRINT && !this.contexts.has(p)) this.set(p, { kind: 'block', indent: block.indent, first: false });
          i = end + 1;
          continue;
        }
        block = undefined;
      }
      if (empty) {
        i = end + 1;
        continue;
      }
      if (s[first] === '#') {
        this.comment(first, end);
        i = end + 1;
        continue;
      }
      if (this.opaqueOnly(first, end)) {
        prev = { kind: 'closed' };
        i = end + 1;
        continue;
      }
      const line = this.blockLine(first, indent, prev);
      prev = line.prev;
      if (line.block !== undefined) {
        const explicit = line.block.explicit;
        block = { parent: line.block.parent, indent: explicit === undefined ? undefined : line.block.parent + explicit, explicit: explicit !== undefined };
      }
      i = this.lineEnd(line.next) + 1;
    }
    return { contexts: this.contexts, groups: this.groups, errors: this.errors };
  }

  /** One block-context line (possibly continuing into a multi-line flow collection or quoted scalar). */
  private blockLine(start: number, indent: number, prev: LineEnd): { next: number; prev: LineEnd; block?: { parent: number; explicit: number | undefined } } {
    const s = this.s;
    let p = start;
    let parent = indent - 1;
    if (indent === 0 && this.documentMarker(p)) {
      p = this.sep(p + 3);
      parent = -1;
      if (s.startsWith('...', start)) return { next: this.rest(p), prev: { kind: 'open', parent: -1 } };
      if (this.atLineEnd(p)) return { next: this.rest(p), prev: { kind: 'open', parent: -1 } };
    } else if (indent === 0 && s[p] === '%') {
      const end = this.lineEnd(p);
      for (let q = p; q < end; q++) if (s[q] === PRINT) this.error(q, 'a <%= %> tag in a YAML directive');
      return { next: end, prev };
    }
    let indicator = false;
    while ((s[p] === '-' || s[p] === '?' || s[p] === ':') && (isBlankOrEnd(s[p + 1]) || s[p + 1] === undefined)) {
      parent = p - this.lineStartOf(p);
      indicator = true;
      p = this.sep(p + 1);
    }
    if (this.atLineEnd(p)) return { next: this.rest(p), prev: { kind: 'open', parent } };
    if (!indicator && s[p] === PRINT && isBlank(s[p + 1])) {
      const after = this.sep(p + 1);
      if (!this.atLineEnd(after)) {
        this.error(p, 'a <%= %> tag at the start of a line followed by more YAML: a printed value cannot make indentation or structure; print the whole entry with <%- toYaml(...) %> or put the tag in a value');
        return { next: this.lineEnd(p), prev: { kind: 'closed' } };
      }
    }
    const keyStart = p;
    const groupMark = this.groups.length;
    const node = this.node(p, 'block', parent);
    if (node.blockHeader) return { next: node.end, prev: { kind: 'closed' }, block: { parent, explicit: node.blockHeader.explicit } };
    p = this.sep(node.end);
    const isKey = s[p] === ':' && (isBlankOrEnd(s[p + 1]) || s[p + 1] === OPAQUE) && node.kind !== 'empty';
    if (!isKey) {
      if (!indicator && node.hasPrint && node.kind === 'plain') {
        // A line that is only a scalar: the value of an open `key:` / `-` above it, or a document.
        if (prev.kind === 'plain' && indent > prev.parent) {
          this.errorsIn(keyStart, node.end, 'a <%= %> tag in a plain scalar that continues over several lines: keep the value on one line (key: <%= v %>)');
        } else if (prev.kind !== 'open' || indent <= prev.parent) {
          this.errorsIn(keyStart, node.end, 'a <%= %> tag alone where a mapping key is expected: it would open a key and a value at once; write key: <%= v %> or print a whole mapping with <%- toYaml(...) %>');
        }
      } else if (!indicator && prev.kind === 'plain' && prev.hadPrint && node.kind === 'plain' && indent > prev.parent) {
        this.errorsIn(keyStart, node.end, 'a plain scalar with a <%= %> tag continues on this line: keep the value on one line');
      }
      const next = this.trailing(p);
      return { next, prev: node.kind === 'plain' ? { kind: 'plain', hadPrint: node.hasPrint, parent } : { kind: 'closed' } };
    }
    // The node was an implicit key: mark its scalars as keys, then read the value.
    this.markKey(keyStart, node.end, groupMark);
    const keyColumn = keyStart - this.lineStartOf(keyStart);
    p = this.sep(p + 1);
    if (this.atLineEnd(p)) return { next: this.rest(p), prev: { kind: 'open', parent: keyColumn } };
    const valueStart = p;
    const value = this.node(p, 'block', keyColumn);
    if (value.blockHeader) return { next: value.end, prev: { kind: 'closed' }, block: { parent: keyColumn, explicit: value.blockHeader.explicit } };
    if (value.kind === 'empty') return { next: this.trailing(value.end), prev: { kind: 'open', parent: keyColumn } };
    void valueStart;
    const next = this.trailing(this.sep(value.end));
    return { next, prev: value.kind === 'plain' ? { kind: 'plain', hadPrint: value.hasPrint, parent: keyColumn } : { kind: 'closed' } };
  }

  /** Whatever follows a node on its line: a comment, else nothing a print may be in. */
  private trailing(from: number): number {
    const s = this.s;
    const p = this.sep(from);
    const end = this.lineEnd(p);
    if (s[p] === '#' && (p === 0 || isBlankOrEnd(s[p - 1]))) {
      this.comment(p, end);
      return end;
    }
    for (let q = p; q < end; q++) if (s[q] === PRINT && !this.contexts.has(q)) this.error(q, 'a <%= %> tag after the end of a YAML value on the same line');
    return end;
  }

  /** One node at `start` (after optional anchor/tag properties). */
  private node(start: number, ctx: 'block' | 'flow', _parent: number): NodeResult {
    const s = this.s;
    let p = start;
    while (s[p] === '!' || s[p] === '&') {
      const from = p;
      while (!isBlankOrEnd(s[p]) && !(ctx === 'flow' && isFlowIndicator(s[p]))) p++;
      for (let q = from; q < p; q++) if (s[q] === PRINT) this.error(q, `a <%= %> tag in a YAML ${s[from] === '&' ? 'anchor' : 'tag'}: a printed value cannot name anchors or tags`);
      p = this.sep(p);
    }
    const c = s[p];
    if (c === undefined || c === '\n' || (c === '#' && (p === 0 || isBlank(s[p - 1])))) return { end: p, kind: 'empty', hasPrint: false };
    if (c === '[' || c === '{') return this.flow(p);
    if (c === '"') return this.doubleQuoted(p);
    if (c === "'") return this.singleQuoted(p, ctx);
    if (ctx === 'block' && (c === '|' || c === '>')) return this.blockHeader(p);
    if (c === '*') {
      const from = p;
      while (!isBlankOrEnd(s[p]) && !(ctx === 'flow' && isFlowIndicator(s[p]))) p++;
      for (let q = from; q < p; q++) if (s[q] === PRINT) this.error(q, 'a <%= %> tag in a YAML alias: a printed value cannot refer to anchors');
      return { end: p, kind: 'alias', hasPrint: false };
    }
    return this.plain(p, ctx);
  }

  private blockHeader(start: number): NodeResult {
    const s = this.s;
    let p = start + 1;
    let explicit: number | undefined;
    for (let k = 0; k < 2; k++) {
      const c = s[p];
      if (c !== undefined && c >= '1' && c <= '9') {
        explicit = Number(c);
        p++;
      } else if (c === '+' || c === '-') p++;
    }
    const end = this.lineEnd(p);
    const q = this.sep(p);
    if (s[q] === '#' && isBlank(s[q - 1])) this.comment(q, end);
    else for (let r = p; r < end; r++) if (s[r] === PRINT) this.error(r, 'a <%= %> tag in a block scalar header (| or >): only indicators and a comment may follow them');
    return { end, kind: 'header', hasPrint: false, blockHeader: { explicit } };
  }

  private doubleQuoted(start: number): NodeResult {
    const s = this.s;
    let hasPrint = false;
    for (let j = start + 1; j < s.length; j++) {
      const c = s[j];
      if (c === '\\') {
        if (s[j + 1] === PRINT) this.error(j + 1, 'a <%= %> tag right after a backslash in a double-quoted string');
        j++;
      } else if (c === PRINT) {
        hasPrint = true;
        this.set(j, { kind: 'double' });
      } else if (c === '"') return { end: j + 1, kind: 'quoted', hasPrint };
    }
    this.errorsIn(start, s.length, 'a <%= %> tag in a double-quoted string that is never closed');
    return { end: s.length, kind: 'quoted', hasPrint };
  }

  private singleQuoted(start: number, ctx: 'block' | 'flow'): NodeResult {
    const s = this.s;
    for (let j = start + 1; j < s.length; j++) {
      if (s[j] !== "'") continue;
      if (s[j + 1] === "'") {
        j++;
        continue;
      }
      const end = j + 1;
      const hasPrint = this.hasPrintIn(start, end);
      if (hasPrint) {
        if (s.slice(start, end).includes('\n')) this.errorsIn(start, end, 'a <%= %> tag in a single-quoted string that spans lines: keep it on one line or use double quotes');
        else this.group(start, end, 'single', ctx === 'flow');
      }
      return { end, kind: 'quoted', hasPrint };
    }
    this.errorsIn(start, s.length, 'a <%= %> tag in a single-quoted string that is never closed');
    return { end: s.length, kind: 'quoted', hasPrint: false };
  }

  private plain(start: number, ctx: 'block' | 'flow'): NodeResult {
    const s = this.s;
    let j = start;
    let adjacent = false;
    for (; j < s.length; j++) {
      const c = s[j];
      if (c === '\n' || (c === '#' && isBlank(s[j - 1]))) break;
      if (ctx === 'flow' && isFlowIndicator(c)) break;
      if (c === ':') {
        const next = s[j + 1];
        if (isBlankOrEnd(next)) break;
        if (ctx === 'block' && next === OPAQUE) break;
        if (ctx === 'flow' && isFlowIndicator(next)) break;
        // A flow key that is one print, directly followed by ':', is printed JSON-like (quoted).
        if (ctx === 'flow' && j === start + 1 && s[start] === PRINT) {
          adjacent = true;
          break;
        }
      }
    }
    let end = j;
    while (end > start && isBlank(s[end - 1])) end--;
    const hasPrint = this.hasPrintIn(start, end);
    if (hasPrint) {
      if (end === start + 1) this.set(start, { kind: 'plain', flow: ctx === 'flow', key: adjacent, adjacent });
      else this.group(start, end, 'plain', ctx === 'flow');
    }
    return { end: j, kind: s[start] === OPAQUE && end === start + 1 ? 'opaque' : 'plain', hasPrint };
  }

  /** A flow collection from its opening bracket; returns after its closing one (or where it could not follow). */
  private flow(start: number): NodeResult {
    const s = this.s;
    const closer = s[start] === '[' ? ']' : '}';
    let hasPrint = false;
    let j = start + 1;
    for (;;) {
      j = this.flowBlanks(j);
      const c = s[j];
      if (c === undefined) break;
      if (c === ']' || c === '}') {
        if (c === closer) return { end: j + 1, kind: 'flow', hasPrint };
        break;
      }
      if (c === ',') {
        j++;
        continue;
      }
      if (c === '?' && isBlankOrEnd(s[j + 1])) j = this.flowBlanks(j + 1);
      const keyStart = j;
      const groupMark = this.groups.length;
      const key = this.node(j, 'flow', 0);
      hasPrint ||= key.hasPrint;
      j = this.flowBlanks(key.end);
      if (s[j] === ':') {
        this.markKey(keyStart, key.end, groupMark);
        j = this.flowBlanks(j + 1);
        if (s[j] !== ',' && s[j] !== closer) {
          const value = this.node(j, 'flow', 0);
          hasPrint ||= value.hasPrint;
          j = this.flowBlanks(value.end);
        }
      }
      if (s[j] === closer) return { end: j + 1, kind: 'flow', hasPrint };
      if (s[j] !== ',') break;
      j++;
    }
    // A flow collection this scanner cannot follow: refuse the prints left in it rather than guess.
    const end = this.lineEnd(j);
    this.errorsIn(start, end, 'a <%= %> tag in a flow collection ([...] or {...}) that could not be read');
    return { end, kind: 'flow', hasPrint };
  }

  /** Skips blanks, line breaks and comments inside a flow collection (prints in comments get their context). */
  private flowBlanks(from: number): number {
    const s = this.s;
    let j = from;
    while (j < s.length) {
      const c = s[j];
      if (c === '\n' || isBlank(c)) j++;
      else if (c === '#' && (j === 0 || isBlankOrEnd(s[j - 1]))) {
        const end = this.lineEnd(j);
        this.comment(j, end);
        j = end;
      } else break;
    }
    return j;
  }

  private comment(from: number, end: number): void {
    for (let q = from; q < end; q++) if (this.s[q] === PRINT) this.set(q, { kind: 'comment' });
  }

  /** Scalars read since `groupMark` between [from, to) are keys. */
  private markKey(from: number, to: number, groupMark: number): void {
    for (let g = groupMark; g < this.groups.length; g++) this.groups[g]!.key = true;
    for (let q = from; q < to; q++) {
      const c = this.contexts.get(q);
      if (c?.kind === 'plain') this.contexts.set(q, { ...c, key: true });
    }
  }

  private group(start: number, end: number, style: 'plain' | 'single', flow: boolean): void {
    // Scriptlets at the scalar's edges count too: an if/else around the whole value is judged with it.
    const dynamic = this.scriptlets.some((p) => p >= start && p <= end) && this.scriptlets.some((p) => p > start && p < end);
    if (dynamic && style === 'single') {
      this.errorsIn(start, end, 'a scriptlet (<% %>) inside a single-quoted string that holds a <%= %> tag: compute the value in one tag, e.g. <%= a ? x : y %>');
      return;
    }
    const index = this.groups.length;
    this.groups.push({ start, end, style, flow, key: false, dynamic });
    for (let q = start; q < end; q++) if (this.s[q] === PRINT) this.set(q, { kind: 'group', group: index });
  }

  private set(at: number, context: PrintContext): void {
    this.contexts.set(at, context);
  }

  private error(at: number, message: string): void {
    this.errors.push({ at, message });
    this.contexts.delete(at);
  }

  private errorsIn(from: number, to: number, message: string): void {
    for (let q = from; q < to && q < this.s.length; q++) if (this.s[q] === PRINT) this.error(q, message);
  }

  private hasPrintIn(from: number, to: number): boolean {
    const k = this.s.indexOf(PRINT, from);
    return k >= 0 && k < to;
  }

  private opaqueOnly(first: number, end: number): boolean {
    const s = this.s;
    let seen = false;
    for (let q = first; q < end; q++) {
      if (s[q] === OPAQUE) seen = true;
      else if (!isBlank(s[q])) return false;
    }
    return seen;
  }

  private documentMarker(p: number): boolean {
    const s = this.s;
    return (s.startsWith('---', p) || s.startsWith('...', p)) && isBlankOrEnd(s[p + 3]);
  }

  private atLineEnd(p: number): boolean {
    const c = this.s[p];
    return c === undefined || c === '\n' || (c === '\r' && (this.s[p + 1] === '\n' || this.s[p + 1] === undefined)) || (c === '#' && (p === 0 || isBlank(this.s[p - 1])));
  }

  /** The rest of a line that holds at most a comment. */
  private rest(p: number): number {
    return this.trailing(p);
  }

  /** Indentation: spaces only. */
  private spaces(from: number): number {
    let j = from;
    while (this.s[j] === ' ') j++;
    return j;
  }

  /** Separation inside a line: spaces and tabs. */
  private sep(from: number): number {
    let j = from;
    while (this.s[j] === ' ' || this.s[j] === '\t') j++;
    return j;
  }

  private lineEnd(from: number): number {
    const j = this.s.indexOf('\n', from);
    return j < 0 ? this.s.length : j;
  }

  private lineStartOf(p: number): number {
    return this.s.lastIndexOf('\n', p - 1) + 1;
  }
}
