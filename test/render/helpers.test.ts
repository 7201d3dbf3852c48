/**
 * Every template helper (docs/templates.md "Helpers"), with the documented examples: GIVEN the helper
 * called as the docs show THEN it returns what the docs say. Names and argument order are Sprig's.
 */
import { describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { ALL_HELPERS } from '../../src/render/sandbox/compile.js';
import { renderText } from './context-harness.js';

function value(expr: string, params: Record<string, unknown> = {}): unknown {
  const out = renderText(`v: <%= ${expr} %>\n`, params);
  if (!out.ok) throw new Error(`${out.code}: ${out.message}`);
  return (load(out.text) as { v: unknown }).v;
}

function failure(expr: string): string {
  const out = renderText(`v: <%= ${expr} %>\n`, {});
  if (out.ok) throw new Error(`expected ${expr} to fail, got ${out.text}`);
  return out.message;
}

const CASES: [string, string, unknown][] = [
  ['fallback', "fallback(null, 'none')", 'none'],
  ['fallback keeps empty strings', "fallback('', 'none')", ''],
  ['dflt (Sprig default)', "dflt('none', '')", 'none'],
  ['dflt keeps a value', "dflt('none', 'x')", 'x'],
  ['dflt treats false and 0 as empty, as Sprig', "[dflt(5, 0), dflt(true, false)]", [5, true]],
  ['required returns the value', "required('must', 'x')", 'x'],
  ['empty', "[empty([]), empty({}), empty(0), empty('a')]", [true, true, true, false]],
  ['coalesce', "coalesce(null, '', 'x')", 'x'],
  ['ternary', "ternary('on', 'off', true)", 'on'],
  ['kindIs / typeOf', "[kindIs('map', {}), kindIs('slice', []), typeOf(1.5), typeOf(1), typeOf('s')]", [true, true, 'float64', 'int', 'string']],
  ['quote', "quote('a\"b')", '"a\\"b"'],
  ['squote', "squote(\"it's\")", "'it''s'"],
  ['squote falls back to double quotes for a line break', "squote('a\\nb')", '"a\\nb"'],
  ['shellQuote', "shellQuote(\"it's\")", "'it'\\''s'"],
  ['trim', "trim('  a \\n')", 'a'],
  ['trimAll', "trimAll('$', '$5.00$')", '5.00'],
  ['trimPrefix', "trimPrefix('v', 'v1.2')", '1.2'],
  ['trimSuffix', "trimSuffix('-', 'app-')", 'app'],
  ['lower / upper', "[lower('AbC'), upper('AbC')]", ['abc', 'ABC']],
  ['title', "title('hello world')", 'Hello World'],
  ['replace', "replace('.', '-', '1.2.3')", '1-2-3'],
  ['contains / hasPrefix / hasSuffix', "[contains('ll', 'hello'), hasPrefix('v', 'v1'), hasSuffix('x', 'v1')]", [true, true, false]],
  ['repeat', "repeat(3, 'ab')", 'ababab'],
  ['substr', "[substr(0, 3, 'hello'), substr(2, -1, 'hello')]", ['hel', 'llo']],
  ['trunc', "[trunc(5, 'hello world'), trunc(-5, 'hello world')]", ['hello', 'world']],
  ['nospace / kebabcase / snakecase / camelcase', "[nospace(' a b '), kebabcase('FirstName'), snakecase('FirstName'), camelcase('http_server')]", ['ab', 'first-name', 'first_name', 'HttpServer']],
  ['abbrev', "abbrev(8, 'hello world')", 'hello...'],
  ['split returns a list', "split(',', 'a,b')", ['a', 'b']],
  ['splitList', "splitList('/', 'a/b/c')", ['a', 'b', 'c']],
  ['join', "join(',', ['a', 1])", 'a,1'],
  ['printf', "printf('%s-%03d %.1f %q %v %5s|%-3d|%x %%', 'a', 7, 1.25, 'x', true, 'r', 4, 255)", 'a-007 1.3 "x" true     r|4  |ff %'],
  ['toString / toStrings', "[toString(3), toStrings([1, true])]", ['3', ['1', 'true']]],
  ['dnsName', "dnsName('My', 'App_1')", 'my-app-1'],
  ['b64enc / b64dec', "[b64enc('héllo'), b64dec(b64enc('ünï ✓'))]", ['aMOpbGxv', 'ünï ✓']],
  ['sha256sum and sha256', "[sha256sum('abc'), sha256('abc')]", ['ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad']],
  ['sha1sum', "sha1sum('abc')", 'a9993e364706816aba3e25717850c26c9cd0d89d'],
  ['toJson / fromJson', "[toJson({a: [1]}), fromJson('{\"a\":1}').a]", ['{"a":[1]}', 1]],
  ['toYaml / fromYaml', "[toYaml({a: {b: 'x y'}}), fromYaml('a: [1, yes]\\nb: 0x10').a]", ['a:\n  b: "x y"', [1, 'yes']]],
  ['indent / nindent', "[indent(2, 'a\\nb'), nindent(2, 'a: 1')]", ['  a\n  b', '\n  a: 1']],
  ['list', 'list(1, 2)', [1, 2]],
  ['first / last / rest / initial', '[first([1, 2, 3]), last([1, 2, 3]), rest([1, 2, 3]), initial([1, 2, 3]), first([])]', [1, 3, [2, 3], [1, 2], null]],
  ['append / prepend / concat', '[append([1], 2), prepend([1], 0), concat([1], [2, 3])]', [[1, 2], [0, 1], [1, 2, 3]]],
  ['has / without', "[has(2, [1, 2]), has({a: 1}, [{a: 1}]), without([1, 2, 3], 2)]", [true, true, [1, 3]]],
  ['uniq / compact / reverse / sortAlpha', "[uniq([1, 1, 2]), compact(['a', '', null, 0]), reverse([1, 2]), sortAlpha(['b', 'a', 10])]", [[1, 2], ['a'], [2, 1], ['10', 'a', 'b']]],
  ['until / untilStep', '[until(3), untilStep(0, 10, 4), until(-2)]', [[0, 1, 2], [0, 4, 8], [0, -1]]],
  ['seq', '[seq(3), seq(2, 4), seq(0, 2, 5), seq(3, 1)]', ['1 2 3', '2 3 4', '0 2 4', '3 2 1']],
  ['len', "[len('abc'), len([1]), len({a: 1, b: 2}), len(null)]", [3, 1, 2, 0]],
  ['dict', "dict('a', 1, 'b', 'x')", { a: 1, b: 'x' }],
  ['dict with __proto__ makes an own key', "Object.keys(dict('__proto__', 1))", ['__proto__']],
  ['get / hasKey', "[get({a: 1}, 'a'), get({a: 1}, 'b'), hasKey({a: 1}, 'a')]", [1, '', true]],
  ['set / unset', "[set(dict(), 'a', 1), unset(dict('a', 1, 'b', 2), 'a')]", [{ a: 1 }, { b: 2 }]],
  ['keys / values', '[keys({a: 1, b: 2}), values({a: 1, b: 2})]', [['a', 'b'], [1, 2]]],
  ['pick / omit', "[pick({a: 1, b: 2}, 'a'), omit({a: 1, b: 2}, 'a')]", [{ a: 1 }, { b: 2 }]],
  ['merge keeps what dst has, deeply', "merge(dict(), {a: {x: 1}, b: 1}, {a: {x: 2, y: 2}, c: 3})", { a: { x: 1, y: 2 }, b: 1, c: 3 }],
  ['mergeOverwrite lets later sources win', "mergeOverwrite(dict(), {a: {x: 1}}, {a: {x: 2}})", { a: { x: 2 } }],
  ['merge copies: the sources stay as they were', "(function () { const src = {a: {x: 1}}; const d = merge(dict(), src); d.a.x = 9; return src.a.x; })()", 1],
  ['dig', "[dig('a', 'b', 'none', {a: {b: 1}}), dig('a', 'c', 'none', {a: {b: 1}})]", [1, 'none']],
  ['deepCopy gives a writable copy of read-only input', "(function () { const c = deepCopy(params.LIST); c.push('z'); return c; })()", ['a', 'z']],
  ['int / int64 / float64 / atoi', "[int('42'), int(3.9), int64('7'), float64('1.5'), atoi('12'), atoi('x')]", [42, 3, 7, 1.5, 12, 0]],
  ['integer arithmetic', '[add(1, 2, 3), add1(1), sub(5, 2), mul(2, 3), div(7, 2), mod(7, 2), max(1, 5, 3), min(4, 2)]', [6, 2, 3, 6, 3, 1, 5, 2]],
  ['float arithmetic', '[addf(1.5, 1), subf(2, 0.5), mulf(1.5, 2), divf(7, 2), floor(1.7), ceil(1.2), round(1.256, 2)]', [2.5, 1.5, 3, 3.5, 1, 2, 1.26]],
  ['semver', "[semver('v1.2.3-rc.1+b5').minor, semver('1.2.3-rc.1').prerelease, semver('1.2').Patch]", [2, 'rc.1', 0]],
  ['semverCompare: ranges', "[semverCompare('>=1.2 <2.0', '1.4.0'), semverCompare('>= 1.2, < 2.0', '2.0.0'), semverCompare('^1.2', '1.9.9'), semverCompare('~1.2', '1.3.0')]", [true, false, true, false]],
  ['semverCompare: wildcards, or, hyphen ranges, pre-releases', "[semverCompare('1.2.x', '1.2.7'), semverCompare('<1 || >=3', '3.1.0'), semverCompare('1.2 - 1.4', '1.4.5'), semverCompare('>=1.0', '1.5.0-rc.1'), semverCompare('>=1.0.0-0', '1.5.0-rc.1')]", [true, true, true, false, true]],
];

describe('template helpers', () => {
  it.each(CASES)('%s', (_name, expr, expected) => {
    expect(value(expr, { LIST: ['a'] })).toEqual(expected);
  });

  it.each([
    ['required fails with its message', "required('PASSWORD is required', '')", /PASSWORD is required/],
    ['fail stops the render', "fail('bad setting')", /bad setting/],
    ['div by zero', 'div(1, 0)', /division by zero/],
    ['fromJson of bad JSON', "fromJson('{')", /fromJson: not valid JSON/],
    ['set on a read-only map', "set(Object.freeze({}), 'X', 1)", /not extensible|Cannot/],
    ['semverCompare of a bad version', "semverCompare('>1', 'banana')", /not a semantic version/],
  ])('GIVEN %s THEN the render fails with a clear message', (_name, expr, message) => {
    expect(failure(expr)).toMatch(message);
  });

  it('every documented helper exists and docs/templates.md lists every helper', async () => {
    const { readFileSync } = await import('node:fs');
    const docs = readFileSync(new URL('../../docs/templates.md', import.meta.url), 'utf8');
    for (const name of ALL_HELPERS) {
      expect(docs, name).toContain(`\`${name}(`);
      expect(value(`typeof ${name}`)).toBe('function');
    }
  });
});
