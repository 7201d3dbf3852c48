/**
 * Issue #11 item 9: a sensitive value is masked in every encoding it takes on its way to a message.
 * Each encoding is produced here by a real encoder (JSON, js-yaml, eemeli/yaml, URLSearchParams,
 * Buffer) or, for Go's quoting, by hand from Go's documented rules.
 */
import jsYaml from 'js-yaml';
import { stringify as yamlStringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MASK, maskSensitive, maskText } from '../../src/render/index.js';

const SECRET = 'pa"ss\\wörd ✓\'x<&>';
const secrets = [SECRET];

/** Go's strconv.Quote (%q) and QuoteToASCII (%+q) of SECRET, written out from Go's rules. */
const GO_Q = 'pa\\"ss\\\\wörd ✓\'x<&>';
const GO_PLUS_Q = 'pa\\"ss\\\\w\\u00f6rd \\u2713\'x<&>';

function leaked(text: string): string[] {
  const fragments = ['pa"ss', 'pa\\"ss', 'ss\\\\w', 'w\\u00f6rd', 'pa%22ss', 'pa%22ss', 'cGEic3Nc', 'wörd'];
  return fragments.filter((f) => text.includes(f));
}

describe('masking every encoding of a sensitive value', () => {
  const wrap = (s: string): string => `Secret "db" is invalid: data.password: Invalid value: ${s}: must be shorter`;
  it.each([
    ['as is', SECRET],
    ['JSON-escaped (a JSON log line, a Status body)', JSON.stringify(SECRET)],
    ['JSON with Go\'s HTML-safe escapes', JSON.stringify(SECRET).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')],
    ['JSON, ASCII only', JSON.stringify(SECRET).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)],
    ['Go-quoted (%q, as Kubernetes API errors quote values)', `"${GO_Q}"`],
    ['Go-quoted to ASCII (%+q)', `"${GO_PLUS_Q}"`],
    ['Go-quoted inside a JSON log line', JSON.stringify(`"${GO_Q}"`)],
    ['YAML double-quoted (js-yaml)', jsYaml.dump({ v: SECRET }, { forceQuotes: true, quotingType: '"' })],
    ['YAML double-quoted (eemeli/yaml)', yamlStringify({ v: SECRET }, { defaultStringType: 'QUOTE_DOUBLE' })],
    ['YAML single-quoted', yamlStringify({ v: SECRET }, { defaultStringType: 'QUOTE_SINGLE' })],
    ['URL-encoded (encodeURIComponent)', `https://x/?p=${encodeURIComponent(SECRET)}`],
    ['form-encoded (URLSearchParams)', new URLSearchParams({ p: SECRET }).toString()],
    ['URL-encoded with lower-case hex', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
    ['base64 inside a longer base64 text, offset 0', Buffer.from(`${SECRET}suffix-bytes`).toString('base64')],
    ['base64 inside a longer base64 text, offset 1', Buffer.from(`a${SECRET}suffix-bytes`).toString('base64')],
    ['base64 inside a longer base64 text, offset 2', Buffer.from(`ab${SECRET}suffix-bytes`).toString('base64')],
    ['base64 of a whole .dockerconfigjson-like blob', Buffer.from(JSON.stringify({ auths: { r: { password: SECRET } } })).toString('base64')],
  ])('%s', (_name, encoded) => {
    const text = wrap(encoded);
    const masked = maskText(text, secrets);
    expect(masked).toContain(MASK);
    expect(leaked(masked)).toEqual([]);
    expect(masked.startsWith('Secret "db" is invalid')).toBe(true);
  });

  it('GIVEN base64 at an offset THEN only the value\'s stable part is masked, the surrounding text survives', () => {
    const blob = Buffer.from(`header-bytes:${SECRET}:trailer-bytes`).toString('base64');
    const masked = maskText(blob, secrets);
    expect(masked).toMatch(/^aGVhZGVyLWJ5dGVzO.*\*\*\*.*/);
    expect(masked.endsWith(blob.slice(-8))).toBe(true);
  });

  it('GIVEN a value used as a map key THEN keys are masked when asked (render, preview) and kept otherwise (status data)', () => {
    const doc = { data: { [SECRET]: 'v', other: SECRET } };
    expect(maskSensitive(doc, secrets, { keys: true })).toEqual({ data: { [MASK]: 'v', other: MASK } });
    expect(maskSensitive(doc, secrets)).toEqual({ data: { [SECRET]: 'v', other: MASK } });
  });

  it('GIVEN two keys that mask alike THEN both are kept, told apart', () => {
    const out = maskSensitive({ [`${SECRET}-a`]: 1, [`${SECRET}-b`]: 2 }, secrets, { keys: true });
    expect(Object.keys(out)).toEqual([`${MASK}-a`, `${MASK}-b`]);
    expect(maskSensitive({ [SECRET]: 1, [JSON.stringify(SECRET).slice(1, -1)]: 2 }, secrets, { keys: true })).toEqual({ [MASK]: 1, [`${MASK}#2`]: 2 });
  });

  it('GIVEN a __proto__ key THEN it stays an own key of the copy (no prototype change)', () => {
    const parsed = JSON.parse('{"__proto__": {"x": 1}, "y": "pa\\"ss\\\\wörd ✓\'x<&>"}') as Record<string, unknown>;
    const out = maskSensitive<Record<string, unknown>>(parsed, secrets);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(out.y).toBe(MASK);
  });

  it('GIVEN a short value THEN it is masked only where it is the whole text (no blanking of unrelated words)', () => {
    expect(maskText('abc', ['abc'])).toBe(MASK);
    expect(maskText('the abc field', ['abc'])).toBe('the abc field');
  });
});
