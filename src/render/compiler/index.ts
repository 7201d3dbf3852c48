/**
 * The template compiler: EJS syntax in, the body of a JavaScript function out, with every `<%= %>`
 * escaped for its YAML context (see yaml-context.ts) by the sandbox's context escapers
 * (sandbox/escape-source.ts). The body runs inside the sandbox as
 * `function (locals, escapeFn, include, rethrow)`; `sites` maps each tag to its template line and column
 * for runtime errors. Context errors are located problems, reported before anything renders.
 */
import { analyzeYamlContexts, OPAQUE, PRINT, type PrintContext, type ScalarGroup } from './yaml-context.js';
import { tokenize, TemplateSyntaxError, type TagToken } from './tokens.js';

export { TemplateSyntaxError } from './tokens.js';

export interface CompiledBody {
  body: string;
  /** [line, column] of each tag, indexed by the `__at` the body sets before running it. */
  sites: [number, number][];
}

export interface ContextProblem {
  line: number;
  column: number;
  message: string;
}

export type BodyResult = { ok: true; compiled: CompiledBody } | { ok: false; syntax: TemplateSyntaxError } | { ok: false; context: ContextProblem[] };

/** Names the compiled body uses from the sandbox scope (bound once per template). */
export const ESCAPER_NAMES = ['__p', '__pf', '__pk', '__pfk', '__pa', '__d', '__b', '__c', '__g', '__raw', '__txt', '__gend'] as const;

/** Group kinds understood by the sandbox's `__g`. */
export const GROUP_KIND = { plain: 0, plainFlow: 1, key: 2, keyFlow: 3, single: 4 } as const;

type Atom =
  | { kind: 'text'; text: string; at: number }
  | { kind: 'print' | 'raw' | 'script'; tag: TagToken; at: number; site: number };

export function compileBody(text: string, locals: readonly string[]): BodyResult {
  let tokens;
  try {
    tokens = tokenize(text);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return { ok: false, syntax: err };
    throw err;
  }
  const atoms: Atom[] = [];
  const sites: [number, number][] = [];
  const scriptlets: number[] = [];
  let skeleton = '';
  for (const t of tokens) {
    if (t.kind === 'text') {
      // Private-use characters of the template's own text must not pass for markers.
      atoms.push({ kind: 'text', text: t.text, at: skeleton.length });
      skeleton += t.text.replace(/[\uE000\uE001]/g, 'x');
      continue;
    }
    if (t.kind === 'comment') continue;
    const site = sites.length;
    sites.push([t.line, t.column]);
    atoms.push({ kind: t.kind, tag: t, at: skeleton.length, site });
    if (t.kind === 'print') skeleton += PRINT;
    else if (t.kind === 'raw') skeleton += OPAQUE;
    else scriptlets.push(skeleton.length);
  }
  const analysis = analyzeYamlContexts(skeleton, scriptlets);
  const siteAt = new Map<number, TagToken>();
  for (const a of atoms) if (a.kind === 'print') siteAt.set(a.at, a.tag);
  const problems: ContextProblem[] = analysis.errors.map((e) => {
    const tag = siteAt.get(e.at);
    return { line: tag?.line ?? 0, column: tag?.column ?? 0, message: e.message };
  });
  for (const [at, tag] of siteAt) {
    if (!analysis.contexts.has(at) && !analysis.errors.some((e) => e.at === at)) {
      problems.push({ line: tag.line, column: tag.column, message: 'the YAML context of this <%= %> tag cannot be determined' });
    }
  }
  if (problems.length > 0) return { ok: false, context: problems };
  const generated = generate(splitAtGroups(atoms, analysis.groups), analysis.contexts, analysis.groups, locals);
  if (typeof generated !== 'string') return { ok: false, context: generated };
  return { ok: true, compiled: { body: generated, sites } };
}

/** Splits text atoms at group boundaries so each atom is wholly inside or outside a group. */
function splitAtGroups(atoms: Atom[], groups: ScalarGroup[]): Atom[] {
  if (groups.length === 0) return atoms;
  const cuts = [...new Set(groups.flatMap((g) => [g.start, g.end]))].sort((a, b) => a - b);
  const out: Atom[] = [];
  for (const a of atoms) {
    if (a.kind !== 'text') {
      out.push(a);
      continue;
    }
    let from = 0;
    for (const c of cuts) {
      const k = c - a.at;
      if (k > from && k < a.text.length) {
        out.push({ kind: 'text', text: a.text.slice(from, k), at: a.at + from });
        from = k;
      }
    }
    if (from < a.text.length) out.push({ kind: 'text', text: a.text.slice(from), at: a.at + from });
  }
  return out;
}

function expr(tag: TagToken): string {
  // As ejs: a trailing semicolon is dropped; the line break ends a trailing // comment.
  return `${tag.code.replace(/;(\s*)$/, '$1')}\n`;
}

function escaperCall(context: PrintContext, code: string): string {
  switch (context.kind) {
    case 'plain':
      return context.adjacent ? `__pa(${code})` : context.key ? `${context.flow ? '__pfk' : '__pk'}(${code})` : `${context.flow ? '__pf' : '__p'}(${code})`;
    case 'double':
      return `__d(${code})`;
    case 'block':
      return `__b(${code}, ${context.indent}, ${context.first})`;
    case 'comment':
      return `__c(${code})`;
    case 'group':
      throw new Error('internal: a group print outside its group');
  }
}

function groupKind(g: ScalarGroup): number {
  if (g.style === 'single') return GROUP_KIND.single;
  if (g.key) return g.flow ? GROUP_KIND.keyFlow : GROUP_KIND.key;
  return g.flow ? GROUP_KIND.plainFlow : GROUP_KIND.plain;
}

function generate(atoms: Atom[], contexts: Map<number, PrintContext>, groups: ScalarGroup[], locals: readonly string[]): string | ContextProblem[] {
  const lines: string[] = [];
  const problems: ContextProblem[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') lines.push(`__output += ${JSON.stringify(text)};`);
    text = '';
  };
  const sorted = [...groups].sort((a, b) => a.start - b.start);
  let g = 0;
  for (let i = 0; i < atoms.length; i++) {
    const a = atoms[i]!;
    const group = sorted[g];
    if (group?.dynamic && a.at >= group.start && a.at < group.end) {
      // A scalar with scriptlets in it: printed as text, then judged whole (__gend) at the same nesting level.
      flush();
      lines.push('__gs = __output.length;');
      let depth = 0;
      let opener: TagToken | undefined;
      let j = i;
      for (; j < atoms.length; j++) {
        const b = atoms[j]!;
        if (b.at > group.end || (b.at === group.end && b.kind !== 'script')) break;
        if (b.kind === 'text') lines.push(`__output += ${JSON.stringify(b.text)};`);
        else if (b.kind === 'print') lines.push(`__at = ${b.site}; __output += __txt(${expr(b.tag)});`);
        else if (b.kind === 'raw') lines.push(`__at = ${b.site}; __output += __raw(${expr(b.tag)});`);
        else {
          const shape = scriptletShape(b.tag.code);
          if (depth === 0 && shape.depth > 0) opener = b.tag;
          depth += shape.depth;
          if (shape.jumps || depth < 0) problems.push({ line: b.tag.line, column: b.tag.column, message: `a scriptlet inside a YAML scalar that holds a <%= %> tag ${shape.jumps ? 'jumps out of it (break, continue or return)' : 'closes a block opened before the scalar'}; compute the value in one tag, e.g. <%= a ? x : y %>` });
          lines.push(`__at = ${b.site};\n;${b.tag.code}\n;`);
        }
      }
      if (depth > 0) {
        problems.push({ line: opener?.line ?? 0, column: opener?.column ?? 0, message: 'a scriptlet inside a YAML scalar that holds a <%= %> tag opens a block that the scalar does not close; compute the value in one tag, e.g. <%= a ? x : y %>' });
      }
      lines.push(`__output = __gend(${groupKind(group)}, __output, __gs);`);
      i = j - 1;
      g++;
      continue;
    }
    if (group && a.at >= group.start && a.at < group.end && !(a.kind === 'script')) {
      // Collect the group's pieces: literal text (and raw output) at even indexes, printed values at odd ones.
      flush();
      const parts: string[] = [];
      let literal: string[] = [];
      let j = i;
      for (; j < atoms.length; j++) {
        const b = atoms[j]!;
        if (b.at >= group.end) break;
        if (b.kind === 'text') literal.push(JSON.stringify(b.text));
        else if (b.kind === 'raw') literal.push(`__raw((__at = ${b.site}, ${expr(b.tag)}))`);
        else if (b.kind === 'print') {
          parts.push(literal.length > 0 ? literal.join(' + ') : '""');
          literal = [];
          parts.push(`(__at = ${b.site}, ${expr(b.tag)})`);
        }
      }
      parts.push(literal.length > 0 ? literal.join(' + ') : '""');
      lines.push(`__output += __g(${groupKind(group)}, [${parts.join(', ')}]);`);
      i = j - 1;
      g++;
      continue;
    }
    while (sorted[g] && a.at >= sorted[g]!.end) g++;
    switch (a.kind) {
      case 'text':
        text += a.text;
        break;
      case 'print': {
        flush();
        const context = contexts.get(a.at)!;
        lines.push(`__at = ${a.site}; __output += ${escaperCall(context, expr(a.tag))};`);
        break;
      }
      case 'raw':
        flush();
        lines.push(`__at = ${a.site}; __t = ${expr(a.tag)}; if (__t != null) __output += __t;`);
        break;
      case 'script':
        flush();
        lines.push(`__at = ${a.site};\n;${a.tag.code}\n;`);
        break;
    }
  }
  flush();
  if (problems.length > 0) return problems;
  const destructure = locals.map((n) => `${n} = __locals.${n}`).join(', ');
  return `"use strict";\nvar __output = "", __t, __gs = 0, __at = -1;\ntry {\nvar __locals = (locals || {}), ${destructure};\n${lines.join('\n')}\nreturn __output;\n} catch (e) {\n  rethrow(e, __at);\n}\n`;
}

/**
 * A scriptlet inside a scalar that is judged whole must leave the nesting as it found it (together with
 * the other scriptlets of the scalar: an if/else, a loop) and never jump out (break, continue, return),
 * or the judgement would not run. Strings and comments are skipped when counting brackets.
 */
function scriptletShape(code: string): { depth: number; jumps: boolean } {
  let depth = 0;
  let stripped = '';
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < code.length && code[i] !== c; i++) if (code[i] === '\\') i++;
      stripped += ' ';
      continue;
    }
    if (c === '/' && code[i + 1] === '/') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      i = end < 0 ? code.length : end + 1;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') depth++;
    if (c === '}' || c === ')' || c === ']') depth--;
    stripped += c;
  }
  return { depth, jumps: /\b(break|continue|return)\b/.test(stripped) };
}
