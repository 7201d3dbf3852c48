/**
 * Lexer for Go text/template: splits a template into text and `{{ }}` actions (applying the `{{-` and
 * `-}}` trim markers to the neighbouring text, as Go does), and an action's inside into tokens. Every
 * token keeps its offset in the template file.
 */
export class TemplateSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export type TokenType =
  | 'field' // .Name (value: "Name"); a lone "." is 'dot'
  | 'dot'
  | 'variable' // $ or $name (value includes "$")
  | 'identifier'
  | 'string'
  | 'rawString'
  | 'char'
  | 'number'
  | 'declare' // :=
  | 'assign' // =
  | 'pipe' // |
  | 'lparen'
  | 'rparen'
  | 'comma';

export interface Token {
  type: TokenType;
  value: string;
  pos: number;
  end: number;
}

export type Segment = { kind: 'text'; pos: number; text: string } | { kind: 'action'; pos: number; tokens: Token[]; end: number };

const SPACE = /[ \t\r\n]/;

/** Splits the template into text and action segments; comments disappear (their trim markers still trim). */
export function splitTemplate(src: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open < 0 ? src.length : open);
    const textPos = i;
    let textStart = textPos;
    if (trimNext) {
      const trimmed = text.replace(/^[ \t\r\n]+/, '');
      textStart += text.length - trimmed.length;
      text = trimmed;
      trimNext = false;
    }
    if (open < 0) {
      if (text !== '') out.push({ kind: 'text', pos: textStart, text });
      break;
    }
    let inner = open + 2;
    if (src[inner] === '-' && SPACE.test(src[inner + 1] ?? '')) {
      text = text.replace(/[ \t\r\n]+$/, '');
      inner += 2;
    }
    if (text !== '') out.push({ kind: 'text', pos: textStart, text });
    const { tokens, close, trimRight } = lexAction(src, inner, open);
    if (tokens !== undefined) out.push({ kind: 'action', pos: open, tokens, end: close });
    trimNext = trimRight;
    i = close;
  }
  return out;
}

/** Lexes from `start` (just inside `{{`) to the closing `}}`; a comment yields `tokens: undefined`. */
function lexAction(src: string, start: number, open: number): { tokens: Token[] | undefined; close: number; trimRight: boolean } {
  let i = start;
  while (SPACE.test(src[i] ?? '')) i++;
  if (src.startsWith('/*', i)) {
    const end = src.indexOf('*/', i + 2);
    if (end < 0) throw new TemplateSyntaxError(i, 'unclosed comment');
    const j = end + 2;
    const m = /^[ \t\r\n]+-\}\}/.exec(src.slice(j, j + 64));
    if (m) return { tokens: undefined, close: j + m[0].length, trimRight: true };
    if (!src.startsWith('}}', j)) throw new TemplateSyntaxError(j, 'comment ends before closing delimiter');
    return { tokens: undefined, close: j + 2, trimRight: false };
  }
  const tokens: Token[] = [];
  for (;;) {
    if (i >= src.length) throw new TemplateSyntaxError(open, 'unclosed action: no "}}"');
    const c = src[i]!;
    if (SPACE.test(c)) {
      // " -}}" closes with a right trim marker.
      let j = i;
      while (SPACE.test(src[j] ?? '')) j++;
      if (src[j] === '-' && src.startsWith('}}', j + 1)) return { tokens, close: j + 3, trimRight: true };
      i = j;
      continue;
    }
    if (src.startsWith('}}', i)) return { tokens, close: i + 2, trimRight: false };
    const tok = lexToken(src, i);
    tokens.push(tok);
    i = tok.end;
  }
}

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;

function lexToken(src: string, i: number): Token {
  const c = src[i]!;
  const simple: Record<string, TokenType> = { '|': 'pipe', '(': 'lparen', ')': 'rparen', ',': 'comma', '=': 'assign' };
  if (src.startsWith(':=', i)) return { type: 'declare', value: ':=', pos: i, end: i + 2 };
  if (simple[c] !== undefined) return { type: simple[c], value: c, pos: i, end: i + 1 };
  if (c === '.') {
    if (/[0-9]/.test(src[i + 1] ?? '')) return lexNumber(src, i);
    let j = i + 1;
    while (IDENT.test(src[j] ?? '')) j++;
    if (j === i + 1) return { type: 'dot', value: '.', pos: i, end: j };
    return { type: 'field', value: src.slice(i + 1, j), pos: i, end: j };
  }
  if (c === '$') {
    let j = i + 1;
    while (IDENT.test(src[j] ?? '')) j++;
    return { type: 'variable', value: src.slice(i, j), pos: i, end: j };
  }
  if (c === '"') return lexQuoted(src, i);
  if (c === '`') {
    const end = src.indexOf('`', i + 1);
    if (end < 0) throw new TemplateSyntaxError(i, 'unterminated raw string');
    return { type: 'rawString', value: src.slice(i + 1, end), pos: i, end: end + 1 };
  }
  if (c === "'") {
    const m = /^'(\\.|[^\\'])'/.exec(src.slice(i, i + 4));
    if (!m) throw new TemplateSyntaxError(i, 'malformed character constant');
    return { type: 'char', value: unescapeGo(m[1]!, i), pos: i, end: i + m[0].length };
  }
  if (/[0-9]/.test(c) || ((c === '-' || c === '+') && /[0-9.]/.test(src[i + 1] ?? ''))) return lexNumber(src, i);
  if (IDENT_START.test(c)) {
    let j = i + 1;
    while (IDENT.test(src[j] ?? '')) j++;
    return { type: 'identifier', value: src.slice(i, j), pos: i, end: j };
  }
  throw new TemplateSyntaxError(i, `unexpected character ${JSON.stringify(c)} in action`);
}

function lexNumber(src: string, i: number): Token {
  const m = /^[+-]?(0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|0[bB][01_]+|(\d[\d_]*)?\.?\d*([eE][+-]?\d+)?)/.exec(src.slice(i));
  const text = m?.[0] ?? '';
  if (text === '' || text === '-' || text === '+' || IDENT.test(src[i + text.length] ?? '')) throw new TemplateSyntaxError(i, 'bad number syntax');
  return { type: 'number', value: text, pos: i, end: i + text.length };
}

function lexQuoted(src: string, i: number): Token {
  let j = i + 1;
  while (j < src.length && src[j] !== '"') {
    if (src[j] === '\\') j++;
    if (src[j] === '\n') break;
    j++;
  }
  if (src[j] !== '"') throw new TemplateSyntaxError(i, 'unterminated quoted string');
  return { type: 'string', value: unescapeGo(src.slice(i + 1, j), i), pos: i, end: j + 1 };
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", a: '\x07', b: '\b', f: '\f', v: '\v' };

/** Go's escapes in interpreted strings: \n \t \\ \" \xHH \uHHHH \UHHHHHHHH and octal \NNN. */
function unescapeGo(s: string, pos: number): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_m, e: string) => {
    if (ESCAPES[e] !== undefined) return ESCAPES[e];
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    throw new TemplateSyntaxError(pos, `unknown escape sequence \\${e}`);
  });
}
