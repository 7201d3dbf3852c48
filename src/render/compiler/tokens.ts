/**
 * The EJS tag syntax Baton templates use, tokenized with template offsets kept (ejs itself rewrites the
 * text before splitting it, so columns are lost there). Same rules as ejs 7: `<%` scriptlet, `<%_`
 * scriptlet that strips the spaces and tabs before it, `<%=` escaped print, `<%-` raw print, `<%#`
 * comment, `<%%` and `%%>` literal delimiters; `-%>` drops one following line break, `_%>` drops
 * the spaces and tabs after it and then one line break. test/render/compiler.test.ts compares the
 * output with ejs's for the same templates.
 */

export type TagKind = 'script' | 'print' | 'raw' | 'comment';

export interface TextToken {
  kind: 'text';
  text: string;
}

export interface TagToken {
  kind: TagKind;
  /** The JavaScript between the delimiters. */
  code: string;
  /** Offset of the opening `<%` in the template, and its 1-based line and column. */
  offset: number;
  line: number;
  column: number;
}

export type Token = TextToken | TagToken;

export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

const DELIMITER = /<%%|%%>|<%=|<%-|<%_|<%#|<%|%>|-%>|_%>/g;
const OPENERS: Record<string, TagKind> = { '<%': 'script', '<%_': 'script', '<%=': 'print', '<%-': 'raw', '<%#': 'comment' };
const CLOSERS = new Set(['%>', '-%>', '_%>']);

/** 1-based line and column of an offset. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  /** After `-%>` / `_%>`: drop one line break (and, for `_%>`, spaces and tabs first) from the next text. */
  let trimNext: '' | '-' | '_' = '';
  let literal = false;
  const addText = (raw: string): void => {
    let t = raw;
    if (trimNext === '_') t = t.replace(/^[ \t]+/, '');
    if (trimNext !== '') t = t.replace(/^(?:\r\n|\r|\n)/, '');
    trimNext = '';
    if (t === '') return;
    const last = tokens[tokens.length - 1];
    if (last?.kind === 'text') last.text += t;
    else tokens.push({ kind: 'text', text: t });
  };
  DELIMITER.lastIndex = 0;
  let pos = 0;
  for (let m = DELIMITER.exec(text); m; m = DELIMITER.exec(text)) {
    const delim = m[0];
    const at = m.index;
    if (at > pos) addText(text.slice(pos, at));
    pos = at + delim.length;
    if (delim === '<%%' || delim === '%%>') {
      addText(delim === '<%%' ? '<%' : '%>');
      literal = true;
      continue;
    }
    const kind = OPENERS[delim];
    if (kind === undefined) {
      // A closing delimiter outside a tag: ejs prints it (in literal mode) or treats it as text.
      if (literal) addText(delim);
      else addText(delim);
      if (delim !== '%>') trimNext = delim[0] === '-' ? '-' : '_';
      literal = false;
      continue;
    }
    literal = false;
    if (delim === '<%_') {
      const last = tokens[tokens.length - 1];
      if (last?.kind === 'text') {
        last.text = last.text.replace(/[ \t]+$/, '');
        if (last.text === '') tokens.pop();
      }
    }
    const close = nextCloser(text, pos);
    const where = positionOf(text, at);
    if (close === undefined) throw new TemplateSyntaxError(`could not find the matching close tag for "${delim}"`, where.line, where.column);
    tokens.push({ kind, code: text.slice(pos, close.at), offset: at, line: where.line, column: where.column });
    pos = close.at + close.delim.length;
    DELIMITER.lastIndex = pos;
    trimNext = close.delim === '-%>' ? '-' : close.delim === '_%>' ? '_' : '';
  }
  if (pos < text.length) addText(text.slice(pos));
  return tokens;
}

/** The first delimiter after an opening tag must close it (ejs refuses `<% a <% b %>`). */
function nextCloser(text: string, from: number): { at: number; delim: string } | undefined {
  const re = new RegExp(DELIMITER.source, 'g');
  re.lastIndex = from;
  const m = re.exec(text);
  if (!m || !CLOSERS.has(m[0])) return undefined;
  return { at: m.index, delim: m[0] };
}
