/**
 * The TEMPLATE_PARTIAL_SCALAR lint on single templates: YAML shapes it must follow (multi-line flow
 * collections, block scalars, keys, properties, raw tags after a value) and where it stays silent.
 */
import { describe, expect, it } from 'vitest';
import { partialScalarProblems } from '../../src/render/template-lint.js';

const lint = (text: string): string[] =>
  partialScalarProblems({ name: 't.yaml.ejs', file: 'frameworks/f/1.0.0/templates/t.yaml.ejs', text, id: 'x' }).map((p) => `${p.line}:${p.column}`);

describe('partialScalarProblems', () => {
  it.each([
    ['a tag as a mapping key', '<%= params.K %>: v\n'],
    ['a JSON-like flow mapping of two tags', 'm: {<%= params.K %>:<%= params.V %>}\n'],
    ['a flow list over several lines', 'args: [\n  <%= params.A %>,\n  b, <%= params.B %>  # last\n]\n'],
    ['a flow map followed by a raw tag', 'env:\n  - { name: A, value: <%= params.A %> }<%- nindent(2, include("_env")) %>\n'],
    ['a nested sequence entry', '- - <%= params.A %>\n'],
    ['a tag after a YAML tag property', 'v: !!str <%= params.A %>\n'],
    ['a tag in a YAML comment', '# v: pre-<%= params.A %>\nv: 1\n'],
    ['a whole line of a block scalar', 'script: |\n  <%= params.A %>\n'],
    ['text around a tag inside a block scalar (a script, an embedded config file)', 'script: |\n  echo <%= params.A %> # kept\nconfig.json: |\n  {"port": <%= params.PORT %>, "url": "http://svc:<%= params.PORT %>/x"}\n'],
    ['a scalar that also holds a raw tag', 'v: <%- params.RAW %>-<%= params.A %>\n'],
    ['a literal <%% that is not a tag', 'v: "<%% x %>"\n'],
    ['the lines of a flow list it cannot follow (a plain scalar over two lines)', 'args: [\n  a\n  b,\n  <%= params.A %>, <%= params.B %>\n]\n'],
    ['a sibling key after a block scalar under a list item', '- script: |\n    echo hi\n  name: <%= params.A %>\n'],
  ])('GIVEN %s THEN it stays silent', (_name, text) => {
    expect(lint(text)).toEqual([]);
  });

  it.each([
    ['a prefixed mapping key', 'pre-<%= params.K %>: v\n', ['1:5']],
    ['a single-quoted string', "v: 'it''s <%= params.A %>'\n", ['1:11']],
    ['a quoted item of a flow list', 'args: ["-c", "echo <%= params.A %>"]\n', ['1:20']],
    ['a tag followed by # without a blank (not a comment)', 'v: <%= params.A %>#x\n', ['1:4']],
    ['a tag after a YAML tag property, with a prefix', 'v: !!str pre-<%= params.A %>\n', ['1:14']],
    ['a continuation line of a plain scalar', 'description: a long\n  text <%= params.A %>\n', ['2:8']],
    ['a prefixed tag after a flow list it could not follow', 'args: [\n  a\n  b]\nv: pre-<%= params.A %>\n', ['4:8']],
    ['a tag that spans lines, after a prefix', 'v: pre-<%=\n  params.A %>\nw: <%= params.B %>\n', ['1:8']],
  ])('GIVEN %s THEN warns at the tag', (_name, text, at) => {
    expect(lint(text)).toEqual(at);
  });

  it('GIVEN a tag inside a quoted string THEN the message says so and shows the string', () => {
    const [found] = partialScalarProblems({ name: 't', file: 't', text: 'v: "x<%= params.A %>"\n', id: 'x' });
    expect(found?.message).toContain('<%= %> is inside a quoted YAML string ("x<%= ... %>")');
  });
});
