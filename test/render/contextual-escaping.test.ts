/**
 * Contextual escaping of `<%= %>` (issue 14), table-driven: every YAML context a tag can be in, with
 * hostile and tricky values. GIVEN a template with the tag in one context and a value,
 * THEN the rendered text parses to exactly the intended structure and value with js-yaml (Baton's
 * parser), with eemeli/yaml as YAML 1.2 and as YAML 1.1 (what older Kubernetes tooling reads), or the
 * render fails with a located error where the value cannot be placed. A subset goes through the real
 * sandbox worker too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import { testRenderer } from './helpers.js';
import { renderText } from './context-harness.js';

const HOSTILE: [string, string][] = [
  ['a newline', 'x\nkind: Secret'],
  ['": "', 'a: b'],
  ['" #"', 'a #b'],
  ['"- "', '- item'],
  ['"{"', '{a: 1}'],
  ['"["', '[1, 2]'],
  ['double quotes', '"q"'],
  ['single quotes', "it's 'x'"],
  ['a backslash', 'C:\\dir\\n'],
  ['"---"', '---'],
  ['"..."', '...'],
  ['an alias', '*a'],
  ['an anchor', '&a'],
  ['a tag', '!!str'],
  ['"%"', '%YAML 1.2'],
  ['"@"', '@user'],
  ['a backtick', '`cmd`'],
  ['leading and trailing spaces', '  padded  '],
  ['the empty string', ''],
  ['"null"', 'null'],
  ['"~"', '~'],
  ['"yes"', 'yes'],
  ['"no"', 'no'],
  ['"on"', 'on'],
  ['"off"', 'off'],
  ['"Y"', 'Y'],
  ['"0x1F"', '0x1F'],
  ['"0123"', '0123'],
  ['"1e3"', '1e3'],
  ['".inf"', '.inf'],
  ['"1:20" (YAML 1.1 sexagesimal)', '1:20'],
  ['"2001-12-14" (YAML 1.1 timestamp)', '2001-12-14'],
  ['"<<" (merge key)', '<<'],
  ['"=" (YAML 1.1 value key)', '='],
  ['U+2028', 'a\u2028b'],
  ['U+0085', 'a\u0085b'],
  ['a tab', 'a\tb'],
  ['CRLF', 'a\r\nb'],
  ['a plain word', 'echo'],
  ['an image reference', 'registry:5000/zk:3.8.4'],
  ['a 100 kB string', 'x'.repeat(100 * 1024)],
  ['a document end on its own line', 'a\n...\nb'],
  ['a comment-looking line', 'a\n# not a comment\nb'],
];

type Expect = { value: unknown } | { error: RegExp };

interface Context {
  name: string;
  template: string;
  /** What the document must parse to, for value `v`; or the error it must fail with. */
  expect: (v: string) => Expect;
}

const block = (v: string): string => v.replace(/\r\n?/g, '\n');
const longKey = (k: string): boolean => k.length > 1000;

const CONTEXTS: Context[] = [
  { name: 'a whole plain value', template: 'a: <%= params.V %>\nb: 1\n', expect: (v) => ({ value: { a: v, b: 1 } }) },
  { name: 'a whole sequence item', template: 'l:\n  - <%= params.V %>\n  - z\n', expect: (v) => ({ value: { l: [v, 'z'] } }) },
  { name: 'a whole item of a nested sequence', template: 'l:\n- - <%= params.V %>\n  - z\n', expect: (v) => ({ value: { l: [[v, 'z']] } }) },
  { name: 'a whole document', template: '<%= params.V %>\n', expect: (v) => ({ value: v }) },
  { name: 'a value under an open key', template: 'a:\n  <%= params.V %>\nb: 1\n', expect: (v) => ({ value: { a: v, b: 1 } }) },
  { name: 'part of a plain scalar (suffix)', template: 'name: <%= params.V %>-config\nb: 1\n', expect: (v) => ({ value: { name: `${v}-config`, b: 1 } }) },
  { name: 'part of a plain scalar (prefix and suffix)', template: 'name: pre-<%= params.V %>-post # c\nb: 1\n', expect: (v) => ({ value: { name: `pre-${v}-post`, b: 1 } }) },
  { name: 'two tags in one plain scalar', template: 'image: <%= params.V %>:<%= params.V %>\n', expect: (v) => ({ value: { image: `${v}:${v}` } }) },
  { name: 'inside a double-quoted string', template: 'a: "x <%= params.V %> y"\nb: 1\n', expect: (v) => ({ value: { a: `x ${v} y`, b: 1 } }) },
  { name: 'inside a single-quoted string', template: "a: 'it''s <%= params.V %>!'\nb: 1\n", expect: (v) => ({ value: { a: `it's ${v}!`, b: 1 } }) },
  { name: 'a literal block scalar line', template: 'a: |\n  start\n  <%= params.V %>\n  end\nb: 1\n', expect: (v) => ({ value: { a: `start\n${block(v)}\nend\n`, b: 1 } }) },
  { name: 'a literal block scalar, mid-line, strip chomping', template: 'a: |-\n  start <%= params.V %> end\nb: 1\n', expect: (v) => ({ value: { a: `start ${block(v)} end`, b: 1 } }) },
  { name: 'a literal block scalar with keep chomping', template: 'a: |+\n  <%= "x" %><%= params.V %>\n\nb: 1\n', expect: (v) => ({ value: { a: `x${block(v)}\n\n`, b: 1 } }) },
  {
    name: 'the first line of a block scalar with an indentation indicator',
    template: 'a:\n  k: |2\n    <%= params.V %>\n    end\nb: 1\n',
    expect: (v) => ({ value: { a: { k: `${block(v)}\nend\n` }, b: 1 } }),
  },
  {
    name: 'the first line of a block scalar without an indicator',
    template: 'a: |\n  <%= params.V %>\n  end\n',
    expect: (v) => (/^[\r\n]*[ ]/.test(v) ? { error: /starts with a space at the start of a block scalar/ } : { value: { a: `${block(v)}\nend\n` } }),
  },
  { name: 'a block scalar in a sequence item', template: 'l:\n  - |\n    <%= "x" %>\n    <%= params.V %>\n    end\n  - z\n', expect: (v) => ({ value: { l: [`x\n${block(v)}\nend\n`, 'z'] } }) },
  { name: 'a whole mapping key', template: '<%= params.V %>: 1\nb: 2\n', expect: (v) => (longKey(v) ? { error: /mapping key of \d+ characters/ } : { value: v === 'b' ? { b: 2 } : { [v]: 1, b: 2 } }) },
  { name: 'part of a mapping key', template: 'k-<%= params.V %>: 1\nb: 2\n', expect: (v) => (longKey(v) ? { error: /mapping key of \d+ characters/ } : { value: { [`k-${v}`]: 1, b: 2 } }) },
  { name: 'a key in a sequence item', template: 'l:\n  - <%= params.V %>: 1\n    z: 2\n', expect: (v) => (longKey(v) ? { error: /mapping key of/ } : { value: { l: [{ [v]: 1, z: 2 }] } }) },
  { name: 'a flow sequence item', template: 'a: [x, <%= params.V %>, z]\n', expect: (v) => ({ value: { a: ['x', v, 'z'] } }) },
  { name: 'part of a flow sequence item', template: 'a: [x, p-<%= params.V %>, z]\n', expect: (v) => ({ value: { a: ['x', `p-${v}`, 'z'] } }) },
  { name: 'a flow mapping value', template: 'a: { k: <%= params.V %>, z: 1 }\n', expect: (v) => ({ value: { a: { k: v, z: 1 } } }) },
  { name: 'a flow mapping key', template: 'a: { <%= params.V %>: 1 }\n', expect: (v) => (longKey(v) ? { error: /mapping key of/ } : { value: { a: { [v]: 1 } } }) },
  { name: 'a flow key directly followed by a colon', template: 'a: {<%= params.V %>:1}\n', expect: (v) => ({ value: { a: { [v]: 1 } } }) },
  { name: 'a multi-line flow collection', template: 'a: [\n  x,\n  <%= params.V %>,\n]\nb: 1\n', expect: (v) => ({ value: { a: ['x', v], b: 1 } }) },
  { name: 'a comment after a value', template: 'a: 1 # note: <%= params.V %>\nb: 2\n', expect: () => ({ value: { a: 1, b: 2 } }) },
  { name: 'a comment line', template: '# <%= params.V %>\na: 1\n', expect: () => ({ value: { a: 1 } }) },
];

/** Parses a YAML stream three ways; every parser must agree on the documents. */
function parseAll(text: string): unknown[][] {
  const jsYaml: unknown[] = [];
  loadAll(text, (d) => void jsYaml.push(d), { schema: CORE_SCHEMA });
  const eemeli = (version: '1.1' | '1.2'): unknown[] =>
    parseAllDocuments(text, { version, uniqueKeys: true, merge: false }).map((d) => {
      if (d.errors.length > 0) throw new Error(`yaml ${version}: ${d.errors[0]!.message}`);
      return d.toJS({ maxAliasCount: -1 }) as unknown;
    });
  return [jsYaml, eemeli('1.2'), eemeli('1.1')];
}

const CASES = CONTEXTS.flatMap((c) => HOSTILE.map(([label, v]) => [`${c.name} <- ${label}`, c, v] as const));

describe('contextual escaping: every context with hostile values', () => {
  it('has at least 60 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CASES)('%s', (_name, context, v) => {
    const out = renderText(context.template, { V: v });
    const expected = context.expect(v);
    if ('error' in expected) {
      expect(out.ok).toBe(false);
      if (!out.ok) {
        expect(out.code).toBe('TEMPLATE_VALUE');
        expect(out.message).toMatch(expected.error);
        expect(out.line).toBeGreaterThan(0);
        expect(out.column).toBeGreaterThan(0);
      }
      return;
    }
    if (!out.ok) throw new Error(`${out.code} ${out.line}:${out.column} ${out.message}`);
    for (const docs of parseAll(out.text)) expect(docs).toEqual([expected.value]);
  });
});

describe('contextual escaping: typed values', () => {
  it.each<[string, string, unknown, unknown]>([
    ['a number stays a number', 'a: <%= params.V %>', 3, { a: 3 }],
    ['a float stays a float', 'a: <%= params.V %>', 1.5, { a: 1.5 }],
    ['a boolean stays a boolean', 'a: <%= params.V %>', false, { a: false }],
    ['null stays null', 'a: <%= params.V %>', null, { a: null }],
    ['a list becomes a flow list', 'a: <%= params.V %>', ['x', 'y: z', 'yes'], { a: ['x', 'y: z', 'yes'] }],
    ['a mapping becomes a flow mapping', 'a: <%= params.V %>', { 'k k': 'v\u2028', '<<': 1 }, { a: { 'k k': 'v\u2028', '<<': 1 } }],
    ['a number in a flow list', 'a: [<%= params.V %>]', 7, { a: [7] }],
    ['a number inside quotes becomes a string', 'a: "<%= params.V %>"', 3, { a: '3' }],
    ['a number in part of a scalar makes a string', 'a: <%= params.V %>0', 8, { a: '80' }],
    ['a boolean in part of a scalar makes a string', 'a: x-<%= params.V %>', true, { a: 'x-true' }],
    ['a number as a key', '<%= params.V %>: x', 5, { 5: 'x' }],
    ['a number in a block scalar', 'a: |\n  n=<%= params.V %>', 42, { a: 'n=42\n' }],
    ['a list in a comment', 'a: 1 # <%= params.V %>', ['x\ny'], { a: 1 }],
  ])('%s', (_name, template, v, expected) => {
    const out = renderText(template, { V: v });
    if (!out.ok) throw new Error(`${out.code}: ${out.message}`);
    for (const docs of parseAll(out.text)) expect(docs).toEqual([expected]);
  });

  it.each<[string, string, unknown, RegExp]>([
    ['null into part of a scalar', 'a: x-<%= params.V %>', null, /null cannot be printed into part of a scalar/],
    ['a list into part of a scalar', 'a: x-<%= params.V %>', ['a'], /a list cannot be printed into part of a scalar/],
    ['a mapping into a double-quoted string', 'a: "<%= params.V %>"', { k: 1 }, /mapping cannot be printed into a double-quoted string/],
    ['null into a block scalar', 'a: |\n  x <%= params.V %>', null, /null cannot be printed into a block scalar/],
    ['a control character into a block scalar', 'a: |\n  x <%= params.V %>', 'bell\u0007', /control character/],
    ['a mapping as a key', '<%= params.V %>: 1', { k: 1 }, /mapping cannot be a mapping key/],
    ['null as a key', '<%= params.V %>: 1', null, /null cannot be a mapping key/],
  ])('GIVEN %s THEN TEMPLATE_VALUE with line and column', (_name, template, v, message) => {
    const out = renderText(`x: 1\n${template}`, { V: v });
    expect(out).toMatchObject({ ok: false, code: 'TEMPLATE_VALUE', line: template.split('\n').length + 1 });
    if (!out.ok) {
      expect(out.message).toMatch(message);
      expect(out.column).toBeGreaterThan(0);
    }
  });
});

describe('contextual escaping: natural style reads as the manifest it produces', () => {
  it.each<[string, string, Record<string, unknown>, unknown]>([
    ['name: <%= instance.name %>-config renders name: echo-config', 'name: <%= params.N %>-config', { N: 'echo' }, 'name: echo-config\n'],
    ['an image from two tags', 'image: <%= params.R %>:<%= params.T %>', { R: 'zookeeper', T: '3.8.4' }, 'image: zookeeper:3.8.4\n'],
    ['a version-looking join is quoted', 'v: <%= params.A %>.<%= params.B %>', { A: 1, B: 2 }, 'v: "1.2"\n'],
    ['a string that would read as a boolean is quoted', 'v: <%= params.A %>', { A: 'on' }, 'v: "on"\n'],
    ['a safe string stays plain', 'v: <%= params.A %>', { A: 'ReadWriteOnce' }, 'v: ReadWriteOnce\n'],
  ])('%s', (_name, template, params, expected) => {
    const out = renderText(`${template}\n`, params);
    expect(out).toEqual({ ok: true, text: expected });
  });
});

describe('contextual escaping: contexts that cannot be determined are located compile errors', () => {
  it.each<[string, string, number, number, RegExp]>([
    ['an anchor name', 'a: &<%= params.V %> x', 1, 5, /anchor/],
    ['an alias', 'a: *<%= params.V %>', 1, 5, /alias/],
    ['a tag name', 'a: !<%= params.V %> x', 1, 5, /tag/],
    ['a block scalar header', 'a: |<%= params.V %>\n  x', 1, 5, /block scalar header/],
    ['a tag that makes indentation', 'a:\n<%= params.V %>  b: 1', 2, 1, /indentation or structure/],
    ['a tag alone where a key is expected', 'a: 1\n<%= params.V %>', 2, 1, /open a key and a value at once/],
    ['a plain scalar continued over lines', 'a: x\n  more <%= params.V %>', 2, 8, /continues over several lines/],
    ['a directive', '%YAML <%= params.V %>\n---\na: 1', 1, 7, /directive/],
    ['a tag after a backslash in double quotes', 'a: "\\<%= params.V %>"', 1, 6, /backslash/],
    ['a single-quoted string over two lines', "a: 'x\n  <%= params.V %>'", 2, 3, /spans lines/],
    ['a scriptlet that leaves a block open inside a scalar', 'a: x<% if (params.V) { %><%= params.V %>', 1, 5, /opens a block/],
    ['a scriptlet that jumps out of a scalar', '<% for (const i of [1]) { %>a: x<% if (i) continue; %><%= i %>\n<% } %>', 1, 33, /jumps out/],
  ])('GIVEN %s THEN TEMPLATE_CONTEXT, located', (_name, template, line, column, message) => {
    const c = compileTemplate({ name: 'main.yaml.ejs', file: 't/main.yaml.ejs', text: template, id: `ctx:${template}` });
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.problem).toMatchObject({ code: 'TEMPLATE_CONTEXT', file: 't/main.yaml.ejs', line, column });
      expect(c.problem.message).toMatch(message);
    }
  });
});

describe('contextual escaping through the sandbox worker', () => {
  const renderer = testRenderer();
  afterAll(() => renderer.close());

  it('renders the same structures as the in-process harness for every context with a hostile value', async () => {
    const v = 'x\n- y: "z" #w';
    for (const context of CONTEXTS) {
      const expected = context.expect(v);
      const c = compileTemplate({ name: 'main.yaml.ejs', file: 't/main.yaml.ejs', text: context.template, id: `worker:${context.template}` });
      if (!c.ok) throw new Error(c.problem.message);
      const [out] = await renderer.run({
        base: { instance: { name: 'site', namespace: 'apps' }, framework: { name: 'web', version: '1.0.0', appVersion: '1' }, params: { V: v }, labels: {}, selectorLabels: {} },
        renders: [{ key: c.compiled.key, file: 't/main.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }],
        partials: {},
        defines: [c.compiled],
      });
      if ('error' in expected) expect(out).toMatchObject({ ok: false, kind: 'value' });
      else expect(out, context.name).toEqual({ ok: true, docs: [{ index: 0, value: expected.value }] });
    }
  });
});
