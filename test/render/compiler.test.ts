/**
 * The template compiler keeps ejs's tag syntax: GIVEN templates that use only what ejs and Baton treat
 * the same (scriptlets, raw output, comments, literal delimiters, whitespace slurping) THEN Baton's
 * output is byte-identical to ejs's. Syntax errors are located.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import { renderText } from './context-harness.js';

const ejs = createRequire(import.meta.url)('ejs') as { render(text: string, data: Record<string, unknown>): string };

describe('ejs syntax compatibility', () => {
  it.each([
    ['raw output and scriptlets', '<% const xs = [1, 2]; %>a:\n<% for (const x of xs) { %>  - <%- x %>\n<% } %>'],
    ['-%> drops the line break after the tag', '<% if (true) { -%>\na: 1\n<% } -%>\nb: 2\n'],
    ['<%_ and _%> slurp spaces', 'a:\n    <%_ if (true) { _%>   \n  b: 1\n<% } %>'],
    ['comments print nothing', 'a: 1<%# a comment\nover lines %>\nb: 2\n'],
    ['literal delimiters', 'a: "<%% not a tag %%>"\n'],
    ['a raw tag with a trailing // comment', 'a: <%- 1 + 1 // two %>\n'],
    ['a raw tag with a trailing semicolon', 'a: <%- "x"; %>\n'],
    ['null and undefined print nothing raw', 'a: x<%- null %><%- undefined %>\n'],
    ['CRLF line breaks and -%>', '<% if (true) { -%>\r\na: 1\r\n<% } -%>\r\n'],
  ])('%s', (_name, text) => {
    const out = renderText(text, {});
    expect(out).toEqual({ ok: true, text: ejs.render(text, { params: {} }) });
  });

  it.each([
    ['an unclosed tag', 'a: 1\nb: <%= params.X\n', 2, 4, /could not find the matching close tag/],
    ['a JavaScript syntax error in a tag', 'a: 1\nb: <%= params.X + %>\n', 2, 4, /template syntax error/],
    ['a syntax error in a scriptlet', 'a: 1\n<% if ( { %>\n', 2, 1, /template syntax error/],
  ])('GIVEN %s THEN TEMPLATE_SYNTAX names line and column', (_name, text, line, column, message) => {
    const c = compileTemplate({ name: 'm.yaml.ejs', file: 't/m.yaml.ejs', text, id: `syntax:${text}` });
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.problem).toMatchObject({ code: 'TEMPLATE_SYNTAX', line, column });
      expect(c.problem.message).toMatch(message);
    }
  });
});
