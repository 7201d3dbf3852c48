/**
 * The sandbox's fast YAML path (fast-yaml-source.ts) is exact or declines: GIVEN any text THEN either it
 * declines (js-yaml parses, as before) or js-yaml parses the text without error into the same documents,
 * key order included. Checked on edge cases, on every template output of the repository's frameworks, and
 * on thousands of random mutations of those outputs (which must never be accepted when js-yaml refuses them).
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadAll, CORE_SCHEMA } from 'js-yaml';
import { DirectoryTree, listFrameworks, loadFramework, selectorLabels, standardLabels, type Framework } from '../../src/render/index.js';
import { FAST_YAML_SOURCE } from '../../src/render/sandbox/fast-yaml-source.js';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import { PRELUDE } from '../../src/render/sandbox/prelude.js';
import { fileURLToPath } from 'node:url';

const fastYaml = (vm.runInThisContext(FAST_YAML_SOURCE) as (schema: unknown) => (text: string) => string[] | undefined)(CORE_SCHEMA);

/** js-yaml's documents as the sandbox sends them (JSON text), or 'error'. */
function reference(text: string): string[] | 'error' {
  try {
    const docs: unknown[] = [];
    loadAll(text, (d) => void docs.push(d), { schema: CORE_SCHEMA, json: false });
    return docs.map((d) => JSON.stringify(d) ?? 'null');
  } catch {
    return 'error';
  }
}

/** Exact or declined; returns whether the fast path took the text. */
function check(text: string): boolean {
  const fast = fastYaml(text);
  if (fast === undefined) return false;
  const ref = reference(text);
  expect(ref, `js-yaml refuses what the fast path took: ${JSON.stringify(text)}`).not.toBe('error');
  // Through JSON.parse and back: the sandbox's reply is parsed the same way on the host.
  expect(fast.map((j) => JSON.stringify(JSON.parse(j))), JSON.stringify(text)).toEqual(ref);
  return true;
}

const EDGE_CASES = [
  'a: 1\n---\nb: 2\n', '---\na: 1\n', 'a: 1\n---\n', '# c\n---\na: 1', '', '\n\n', '# only', '---\n---\na: 1', 'a: 1\n--- \nb: 1',
  'a: 1\n---#x\nb: 1', 'a:\n- 1\n- 2', 'a: |\n  x\n\n  y\n\n\nb: 1', 'a: |-\n  x\n   y\n', 'a: |+\n  x\n\n', 'a: |\n\n  x', 'a: |\n  \n  x',
  'a: |\n   \n  x', 'k: -0', 'k: 0o17', 'k: 017', 'k: 1_000', 'k: 0x1F', 'k: +1', 'k: .5', 'k: 1.', 'k: 1e3', 'k: ~', 'k: Null', 'k: TRUE', 'k: tRue',
  'k: "a\\/b"', "k: 'it''s'", 'k: a # c', 'k: a#c', 'k: {a: 1, b: [x, y], c: "q"}', 'k: [a, {b: c}]', 'k: [a, b: c]', 'k: [a,]', 'k: {a: 1,}',
  'k: [ ]', 'k: {a}', '- a\n- b: c\n  d: e', '- - a', 'k: x\n  y', 'k:\n  - a\n  - b\nz: 1', 'a: 1\na: 2', '"a": 1', 'a b: 1', 'a:b', 'k: a:b',
  'k: http://x', 'k: -', 'k: - a', 'k: [/bin/bash, -c]', '1: a\n0: b', 'k: 1:2', 'k: .inf', 'k: -.Inf', 'k: .NaN', 'true: 1', '0x10: a', '~: x',
  'null: 1\nNull: 2', '__proto__: 1', 'k: {__proto__: 1}', '<<: 1', 'k: &a 1', 'k: *a', 'k: !!str 1', '? a\n: b', 'k: >\n  a\n  b', 'k: |2\n   a',
  'k: "\\x41"', 'k: "\\u00e9\\n"', 'k: "a\n  b"', "k: 'a\n  b'", 'k: [a,\n  b]', 'a:\n  b:\n    c: 1\n  d: 2\ne: 3', 'a:\n    b: 1\n  c: 2',
  '  a: 1\n  b: 2', 'k: |\n    x\n  y: 1', '- |\n  a\n  b\n- c', '- k: |\n    x\n  j: 1', 'k: a\n# c\n  # d\nj: 1', 'k:\n\n  - a', 'k: "a" # c',
  'k: "a"b', 'k: \'a\'b', 'k: [a, "b", \'c\', {d: [e]}] # c', 'k: {"a":1}', 'k: {a:1}', 'k: {a: b:c}', 'k: [a]]', 'k: [a', 'k: {a: 1', 'k: [a #c]',
  'k: @a', 'k: `a`', 'k: %a', '%YAML 1.2\n---\na: 1', 'a: 1\n...\n', 'a[0]: 1', 'a#b: 1', 'a #b: 1', 'a  : 1', '-a: 1', 'k: -a', 'k: ?a', 'k: :a',
  'k:\n-\n- a', '-\n  a: 1', 'k: "\t"', 'k:\ta', '\ufeffa: 1', 'a: 1\r\nb: 2', 'k: "\u0001"', 'k: é ✓', 'é: ✓', 'k: [1, 2.5, -3, 0x1F, true, ~, null]',
  'k: { a: 1, a: 2 }', 'k: { "a": 1, a: 2 }', 'k: {1: a, 0x1: b}', 'a:\n  - b\n  -\n  - c', 'a: 1\n  # indented comment\nb: 2', 'k: a  ', 'k:    a',
  'k: |-\n  x\n\n', 'k: |\n  x\n---\nj: 1', 'k: |\n  # not a comment\n  x', 'k: |  # header comment\n  x', 'k: |\n  x\n # c\nj: 1',
  // Decimal integers taken as their own JSON text (1-15 digits, no leading zero, maybe negative) and their neighbours,
  // which go through the resolvers: zero and negative zero, leading zeros, signs, 16+ digits, underscores, exponents.
  'k: 0', 'k: -0', 'k: 00', 'k: 0123', 'k: -5', 'k: -05', 'k: +5', 'k: 2181', 'k: 123456789012345', 'k: -123456789012345',
  'k: 1234567890123456', 'k: 9007199254740993', 'k: 12345678901234567890', 'k: 1_0', 'k: 1e5', 'k: 12a', 'k: 1 2', 'k: [0, -0, 08, 2181, -1, +1]',
  'k: {a: 0, b: -0, c: 007}', '- 42\n- -42\n- 042', '42: a\n-0: b',
  // Plain scalars and keys written as JSON by quoting alone unless they hold a quote or a backslash; quoted keys with escapes;
  // a line looked at twice (a value, then the next entry), and a '- key:' line rewritten after being looked at.
  'k: a"b', 'k: a\\b', 'k: C:\\dir\\x"y', 'a"b: 1', 'a\\b: 1', 'k: [a"b, c\\d]', 'k: {a"b: c\\d}', '"a\\nb": 1', '"a\\u0001": 1', '"\\ud800x": 1',
  "'a\"b': 1", 'k: {"a\\tb": 1}', 'k: 1e3\nj: 0x1F', '1e3: a\n.inf: b\nfalse: c', 'k: ✓"é', '- a: 1\n  b: 2\n-   c: 3\n    d: 4\n- e', '- a: 1\n- b: 2\n  c:\n  - d: 3',
];

describe('fast YAML path', () => {
  it.each(EDGE_CASES.map((t) => [t]))('%j is parsed exactly as js-yaml does, or declined', (text) => {
    check(text);
  });

  it('takes the common shapes of manifests (not only declining)', () => {
    for (const text of ['a: 1\nb:\n  c: [x, "y", 2]\n  d:\n    - e: f\n      g: |\n        line\n', 'k: {name: a, value: "1"}\n---\nj: - x\n'.split('---\n')[0]!]) {
      expect(check(text), text).toBe(true);
    }
  });

  it('takes plain scalars and keys holding quotes or backslashes, escaped keys and rewritten sequence entries, exactly', () => {
    for (const text of ['k: a"b', 'k: C:\\dir\\x"y', 'a"b: 1', 'a\\b: 1', 'k: [a"b, c\\d]', 'k: {a"b: c\\d}', '"a\\nb": 1', '"a\\u0001": 1', 'k: {"a\\tb": 1}', '1e3: a\n.inf: b\nfalse: c', '- a: 1\n  b: 2\n-   c: 3\n    d: 4\n- e']) {
      expect(check(text), text).toBe(true);
    }
    expect(fastYaml('a"b: c\\d\nk: [x"]')).toEqual(['{"a\\"b":"c\\\\d","k":["x\\""]}']);
    expect(fastYaml('a: 0\nb: -0\nc: 0123\nd: [2181, -5, 1234567890123456]')).toEqual(['{"a":0,"b":0,"c":123,"d":[2181,-5,1234567890123456]}']);
  });

  // The pre-check (one scan for anything but printable ASCII and newlines) only decides whether the full checks run:
  // every character outside printable ASCII still meets them, whole-text and per character.
  it('declines texts with a character YAML forbids or the fast path leaves to js-yaml, and takes printable non-ASCII ones', () => {
    const forbidden = ['\t', '\r', '\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u0084', '\u0086', '\u009f', '\ufffe', '\uffff', '\ud800', '\udc00', 'x\udc00', '\ud83dx'];
    for (const c of forbidden) {
      for (const text of [`k: a${c}b`, `k: |\n  a${c}b\n`, `a${c}: 1`]) expect(fastYaml(text), JSON.stringify(text)).toBeUndefined();
    }
    expect(fastYaml('\ufeffa: 1')).toBeUndefined();
    for (const c of ['\u0085', '\u00a0', '\u00e9', '\u2028', '\ufffd', '\ud83d\ude00', '\u4e2d']) {
      for (const text of [`k: a${c}b`, `k: "a${c}b"`, `a${c}b: 1`]) expect(check(text), JSON.stringify(text)).toBe(true);
    }
  });

  const outputs = renderedOutputs();

  it('every template output of the repository\'s frameworks: exact, and the fast path takes most', async () => {
    const texts = await outputs;
    expect(texts.length).toBeGreaterThan(20);
    const taken = texts.filter((t) => check(t)).length;
    // ZooKeeper (the render bench's framework) must go the fast way entirely.
    const zk = texts.filter((t) => t.includes('zookeeper'));
    expect(zk.filter((t) => fastYaml(t) === undefined)).toEqual([]);
    expect(taken / texts.length).toBeGreaterThan(0.8);
  });

  it('random mutations of those outputs: never accepted when js-yaml refuses them, never different', async () => {
    const texts = await outputs;
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [':', ': ', ' #', '#', ' ', '  ', '-', '- ', '"', "'", '|', '|-', '>', '\n', '\n  ', '[', ']', '{', '}', ',', '*', '&', '!', '?', '---\n', '\\', 'true', '0x', '__proto__', 'é'];
    let taken = 0;
    for (let i = 0; i < 4000; i++) {
      const text = texts[random(texts.length)]!;
      let mutated = text;
      for (let m = 0, count = 1 + random(3); m < count; m++) {
        const at = random(mutated.length + 1);
        const cut = random(3);
        mutated = mutated.slice(0, at) + pieces[random(pieces.length)]! + mutated.slice(at + cut);
      }
      if (check(mutated)) taken++;
    }
    // Many mutations stay valid and are taken: the comparison above is not vacuous.
    expect(taken).toBeGreaterThan(500);
  });
});

/** Every template of every framework version under frameworks/, rendered in-process for its deploy plan with default values. */
async function renderedOutputs(): Promise<string[]> {
  const tree = new DirectoryTree(fileURLToPath(new URL('../../', import.meta.url)));
  const api = vm.runInContext(PRELUDE, vm.createContext({})) as { scope(): Record<string, unknown> };
  const scope = { ...api.scope(), Object, Array, String, Number, Boolean, JSON, Math, parseInt, parseFloat, isNaN, isFinite, Error };
  const texts: string[] = [];
  for (const { name, version } of await listFrameworks(tree)) {
    const loaded = await loadFramework(tree, name, version);
    if (!loaded.ok) continue;
    texts.push(...renderAll(loaded.value, scope));
  }
  return texts;
}

type HostTemplate = (locals: Record<string, unknown>, escapeFn: (v: unknown) => string, include: (name: string, extra?: Record<string, unknown>) => string, rethrow: (e: unknown) => never) => string;

function renderAll(fw: Framework, scope: Record<string, unknown>): string[] {
  const fns = new Map<string, HostTemplate>();
  for (const [name, t] of fw.templates) {
    const c = compileTemplate(t);
    if (c.ok) fns.set(name, (vm.runInThisContext(c.compiled.src) as (s: Record<string, unknown>) => HostTemplate)(scope));
  }
  const params: Record<string, unknown> = {};
  for (const p of fw.params) params[p.name] = p.default ?? (p.type === 'integer' || p.type === 'number' ? 1 : p.type === 'boolean' ? true : p.type === 'array' ? [] : p.type === 'object' ? {} : 'value');
  const escape = (v: unknown): string => JSON.stringify(v) ?? 'null';
  const rethrow = (e: unknown): never => {
    throw e;
  };
  const out: string[] = [];
  for (const [name, fn] of fns) {
    if (name.split('/').pop()!.startsWith('_')) continue;
    const locals: Record<string, unknown> = {
      instance: { name: 'inst', namespace: 'ns' },
      framework: { name: fw.name, version: fw.version, appVersion: fw.decl.appVersion },
      params,
      plan: { name: 'deploy', phase: 'p', step: 's', args: {} },
      labels: standardLabels(fw.name, 'inst', fw.version),
      selectorLabels: selectorLabels(fw.name, 'inst'),
      pipes: {},
    };
    const include = (n: string, extra?: Record<string, unknown>): string => {
      const f = fns.get(n) ?? fns.get(`${n}.ejs`) ?? fns.get(`${n}.yaml.ejs`);
      if (!f) throw new Error(`no template ${n}`);
      return f({ ...locals, ...extra }, escape, include, rethrow);
    };
    try {
      out.push(fn(locals, escape, include, rethrow));
    } catch {
      // A template that needs values the defaults do not give: not this test's concern.
    }
  }
  return out;
}
