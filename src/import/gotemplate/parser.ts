/**
 * Parser for the Go text/template subset: text, actions with pipelines, if/else if/else, range (with
 * `$i, $v :=`), with, define/template/block, break/continue, variables, parenthesized pipelines and
 * field chains. Errors are TemplateSyntaxError with the offset of the offending token.
 */
import type { Arg, Command, Node, ParsedTemplate, Pipeline, VariableNode } from './ast.js';
import { splitTemplate, TemplateSyntaxError, type Segment, type Token } from './lexer.js';

export { TemplateSyntaxError } from './lexer.js';

type Keyword = 'if' | 'range' | 'with' | 'define' | 'block' | 'else' | 'end' | 'template' | 'break' | 'continue';
const KEYWORDS = new Set<string>(['if', 'range', 'with', 'define', 'block', 'else', 'end', 'template', 'break', 'continue']);

/** What closed a list: `end`, `else` (with the tokens after it, e.g. `if x`), or the end of the file. */
type Terminator = { kind: 'end'; pos: number } | { kind: 'else'; pos: number; rest: Token[] } | { kind: 'eof' };

export function parseTemplate(src: string): ParsedTemplate {
  const segments = splitTemplate(src);
  const p = new Parser(segments);
  const defines: ParsedTemplate['defines'] = new Map();
  const { list, term } = p.list(defines, 0);
  if (term.kind !== 'eof') throw new TemplateSyntaxError(term.pos, `unexpected {{${term.kind}}}`);
  return { root: list, defines };
}

class Parser {
  private i = 0;
  constructor(private readonly segments: Segment[]) {}

  list(defines: ParsedTemplate['defines'], depth: number): { list: Node[]; term: Terminator } {
    const list: Node[] = [];
    while (this.i < this.segments.length) {
      const seg = this.segments[this.i++]!;
      if (seg.kind === 'text') {
        list.push({ type: 'text', pos: seg.pos, text: seg.text });
        continue;
      }
      const toks = seg.tokens;
      if (toks.length === 0) throw new TemplateSyntaxError(seg.pos, 'missing value for command');
      const first = toks[0]!;
      const kw = first.type === 'identifier' && KEYWORDS.has(first.value) ? (first.value as Keyword) : undefined;
      if (kw === 'end') {
        if (toks.length > 1) throw new TemplateSyntaxError(toks[1]!.pos, 'unexpected token after end');
        if (depth === 0) throw new TemplateSyntaxError(seg.pos, 'unexpected {{end}}');
        return { list, term: { kind: 'end', pos: seg.pos } };
      }
      if (kw === 'else') {
        if (depth === 0) throw new TemplateSyntaxError(seg.pos, 'unexpected {{else}}');
        return { list, term: { kind: 'else', pos: seg.pos, rest: toks.slice(1) } };
      }
      if (kw === 'if' || kw === 'range' || kw === 'with') list.push(this.control(kw, seg.pos, toks.slice(1), defines, depth));
      else if (kw === 'define' || kw === 'block') {
        const name = templateName(toks, seg.pos);
        const body = this.list(defines, depth + 1);
        if (body.term.kind !== 'end') throw new TemplateSyntaxError(seg.pos, `{{${kw}}} without {{end}}`);
        if (defines.has(name)) throw new TemplateSyntaxError(seg.pos, `template ${JSON.stringify(name)} defined twice`);
        defines.set(name, { pos: seg.pos, list: body.list });
        if (kw === 'block') list.push({ type: 'template', pos: seg.pos, name, pipe: toks.length > 2 ? pipeline(toks.slice(2), seg.pos, false) : undefined });
      } else if (kw === 'template') {
        const name = templateName(toks, seg.pos);
        list.push({ type: 'template', pos: seg.pos, name, pipe: toks.length > 2 ? pipeline(toks.slice(2), seg.pos, false) : undefined });
      } else if (kw === 'break' || kw === 'continue') {
        if (toks.length > 1) throw new TemplateSyntaxError(toks[1]!.pos, `unexpected token after ${kw}`);
        list.push({ type: kw, pos: seg.pos });
      } else list.push({ type: 'action', pos: seg.pos, pipe: pipeline(toks, seg.pos, true) });
    }
    return { list, term: { kind: 'eof' } };
  }

  private control(kw: 'if' | 'range' | 'with', pos: number, toks: Token[], defines: ParsedTemplate['defines'], depth: number): Node {
    if (toks.length === 0) throw new TemplateSyntaxError(pos, `missing value for ${kw}`);
    const pipe = pipeline(toks, pos, true, kw === 'range');
    const body = this.list(defines, depth + 1);
    if (body.term.kind === 'eof') throw new TemplateSyntaxError(pos, `unexpected EOF: {{${kw}}} without {{end}}`);
    let elseList: Node[] | undefined;
    let elseIf = false;
    if (body.term.kind === 'else') {
      const rest = body.term.rest;
      if (rest.length > 0) {
        // `{{else if x}}` / `{{else with x}}`: a nested control that shares this one's {{end}}.
        const head = rest[0]!;
        if (head.type !== 'identifier' || (head.value !== 'if' && head.value !== 'with') || (head.value === 'with' && kw !== 'with')) {
          throw new TemplateSyntaxError(head.pos, `unexpected ${JSON.stringify(head.value)} after else`);
        }
        elseList = [this.control(head.value, body.term.pos, rest.slice(1), defines, depth)];
        elseIf = true;
      } else {
        const tail = this.list(defines, depth + 1);
        if (tail.term.kind !== 'end') throw new TemplateSyntaxError(body.term.pos, tail.term.kind === 'else' ? 'expected end; found {{else}}' : `unexpected EOF: {{${kw}}} without {{end}}`);
        elseList = tail.list;
      }
    }
    if (kw === 'if') return { type: 'if', pos, pipe, list: body.list, elseList, elseIf };
    if (kw === 'range') return { type: 'range', pos, pipe, list: body.list, elseList };
    return { type: 'with', pos, pipe, list: body.list, elseList };
  }
}

function templateName(toks: Token[], pos: number): string {
  const t = toks[1];
  if (!t || (t.type !== 'string' && t.type !== 'rawString')) throw new TemplateSyntaxError(t?.pos ?? pos, `${toks[0]!.value}: expected a quoted template name`);
  return t.value;
}

/** Parses a pipeline, with an optional `$x :=` / `$x =` (or `$i, $v :=` in range). */
function pipeline(toks: Token[], pos: number, allowDecl: boolean, allowTwo = false): Pipeline {
  const decl: VariableNode[] = [];
  let isAssign = false;
  let k = 0;
  if (allowDecl && toks[0]?.type === 'variable') {
    const second = toks[1];
    if (second?.type === 'declare' || second?.type === 'assign') {
      decl.push(variableNode(toks[0]));
      isAssign = second.type === 'assign';
      k = 2;
    } else if (second?.type === 'comma' && toks[2]?.type === 'variable' && (toks[3]?.type === 'declare' || toks[3]?.type === 'assign')) {
      if (!allowTwo) throw new TemplateSyntaxError(second.pos, 'too many declarations in command');
      decl.push(variableNode(toks[0]), variableNode(toks[2]));
      isAssign = toks[3].type === 'assign';
      k = 4;
    }
  }
  const stream = new TokenStream(toks, k, pos);
  const pipe = parsePipe(stream, decl, isAssign, pos);
  if (!stream.done()) throw new TemplateSyntaxError(stream.peek()!.pos, `unexpected ${JSON.stringify(stream.peek()!.value)} in command`);
  return pipe;
}

class TokenStream {
  constructor(
    private readonly toks: Token[],
    public k: number,
    readonly pos: number,
  ) {}
  peek(): Token | undefined {
    return this.toks[this.k];
  }
  next(): Token | undefined {
    return this.toks[this.k++];
  }
  done(): boolean {
    return this.k >= this.toks.length;
  }
  /** The token after the current one when it touches it (no space between), for field chains. */
  adjacentField(prevEnd: number): Token | undefined {
    const t = this.toks[this.k];
    return t && t.type === 'field' && t.pos === prevEnd ? t : undefined;
  }
}

function parsePipe(s: TokenStream, decl: VariableNode[], isAssign: boolean, pos: number): Pipeline {
  const cmds: Command[] = [];
  for (;;) {
    const cmd = parseCommand(s);
    if (cmd.args.length === 0) throw new TemplateSyntaxError(s.peek()?.pos ?? s.pos, 'missing command in pipeline');
    cmds.push(cmd);
    if (s.peek()?.type !== 'pipe') break;
    s.next();
  }
  return { pos: cmds[0]?.pos ?? pos, decl, isAssign, cmds };
}

function parseCommand(s: TokenStream): Command {
  const args: Arg[] = [];
  const pos = s.peek()?.pos ?? s.pos;
  while (!s.done()) {
    const t = s.peek()!;
    if (t.type === 'pipe' || t.type === 'rparen') break;
    args.push(parseOperand(s));
  }
  return { pos, args };
}

function parseOperand(s: TokenStream): Arg {
  const t = s.next()!;
  let node: Arg;
  let end = t.end;
  switch (t.type) {
    case 'field': {
      const idents = [t.value];
      for (let f = s.adjacentField(end); f; f = s.adjacentField(end)) {
        idents.push(f.value);
        end = s.next()!.end;
      }
      return { type: 'field', pos: t.pos, idents };
    }
    case 'variable': {
      const v = variableNode(t);
      for (let f = s.adjacentField(end); f; f = s.adjacentField(end)) {
        v.idents.push(f.value);
        end = s.next()!.end;
      }
      return v;
    }
    case 'dot':
    case 'string':
    case 'rawString':
    case 'char':
    case 'number':
    case 'identifier':
      node = term(t);
      break;
    case 'lparen': {
      const pipe = parsePipe(s, [], false, t.pos);
      const close = s.next();
      if (close?.type !== 'rparen') throw new TemplateSyntaxError(close?.pos ?? t.pos, 'unclosed left paren');
      node = { type: 'pipe', pos: t.pos, pipe };
      end = close.end;
      break;
    }
    case 'assign':
    case 'comma':
    case 'declare':
    case 'pipe':
    case 'rparen':
      throw new TemplateSyntaxError(t.pos, `unexpected ${JSON.stringify(t.value)} in operand`);
  }
  const idents: string[] = [];
  for (let f = s.adjacentField(end); f; f = s.adjacentField(end)) {
    idents.push(f.value);
    end = s.next()!.end;
  }
  return idents.length > 0 ? { type: 'chain', pos: node.pos, node, idents } : node;
}

/** A single-token operand: dot, literals, true/false/nil, or a function name. */
function term(t: Token): Arg {
  if (t.type === 'dot') return { type: 'dot', pos: t.pos };
  if (t.type === 'string' || t.type === 'rawString') return { type: 'string', pos: t.pos, value: t.value };
  if (t.type === 'char') return { type: 'number', pos: t.pos, text: t.value, value: t.value.codePointAt(0) ?? 0, isInt: true };
  if (t.type === 'number') return numberNode(t);
  if (t.value === 'true' || t.value === 'false') return { type: 'bool', pos: t.pos, value: t.value === 'true' };
  if (t.value === 'nil') return { type: 'nil', pos: t.pos };
  if (KEYWORDS.has(t.value)) throw new TemplateSyntaxError(t.pos, `unexpected keyword ${t.value} in operand`);
  return { type: 'identifier', pos: t.pos, name: t.value };
}

function variableNode(t: Token): VariableNode {
  return { type: 'variable', pos: t.pos, name: t.value, idents: [] };
}

function numberNode(t: Token): Arg {
  const text = t.value.replace(/_/g, '');
  const isInt = /^[+-]?(0[xX][0-9a-fA-F]+|0[oObB]?[0-7]+|0[bB][01]+|\d+)$/.test(text);
  let value: number;
  if (/^[+-]?0[xX]/.test(text)) value = parseInt(text.replace(/0[xX]/, ''), 16) * (text.startsWith('-') ? -1 : 1);
  else if (/^[+-]?0[bB]/.test(text)) value = parseInt(text.replace(/^[+-]?0[bB]/, ''), 2) * (text.startsWith('-') ? -1 : 1);
  else if (/^[+-]?0[oO]?[0-7]+$/.test(text) && text.replace(/^[+-]/, '').length > 1) value = parseInt(text.replace(/^([+-]?)0[oO]?/, '$1'), 8);
  else value = Number(text);
  if (!Number.isFinite(value)) throw new TemplateSyntaxError(t.pos, `bad number syntax: ${t.value}`);
  return { type: 'number', pos: t.pos, text: t.value, value, isInt };
}
