/**
 * Masking of sensitive values wherever output is shown to people (render output, logs, status,
 * checkpoints, Events, previews). A value is hidden in every form it takes on its way to a message:
 * as is; JSON-escaped (also with Go's HTML-safe and an ASCII-only escape); Go-quoted (`%q` and `%+q`,
 * as the Kubernetes API quotes values in its errors), also twice (a quoted value inside a JSON log line);
 * YAML double- and single-quoted; URL-encoded (JavaScript's and Go's query escaping, either hex case);
 * base64 (standard, unpadded, URL-safe) and inside a longer base64 text at each of the three byte
 * alignments (as is and JSON-escaped, as in a base64 `.dockerconfigjson`). A form is masked where it appears whole, and as a substring when it is at least
 * MIN_SUBSTRING characters long (so a short value does not blank out unrelated text).
 * Not recognised: a value a template transforms otherwise (hashes, slices, case changes), other
 * encodings (hex), and a YAML double-quoted string folded over several lines.
 */
export const MASK = '***';
const MIN_SUBSTRING = 4;
/** A base64 fragment of a value inside a longer base64 text is masked only from this length on. */
const MIN_ALIGNED = 6;

function jsonInner(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

const hex4 = (c: number): string => c.toString(16).padStart(4, '0');

/** Go's encoding/json: also escapes <, >, & and U+2028/U+2029. */
function goJsonInner(s: string): string {
  return jsonInner(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${hex4(c.charCodeAt(0))}`);
}

/** JSON with every non-ASCII character escaped (Python's ensure_ascii, many loggers). */
function asciiJsonInner(s: string): string {
  return jsonInner(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${hex4(c.charCodeAt(0))}`);
}

const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** Go's strconv.Quote without the quotes (`%q`); `ascii` is QuoteToASCII (`%+q`). */
function goQuoteInner(s: string, ascii: boolean): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named = GO_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c < 0x80) out += ch;
    else if (ascii || !isPrintable(c)) out += c > 0xffff ? `\\U${c.toString(16).padStart(8, '0')}` : `\\u${hex4(c)}`;
    else out += ch;
  }
  return out;
}

function isPrintable(c: number): boolean {
  return !(c >= 0x80 && c < 0xa0) && c !== 0xad && !(c >= 0x2028 && c <= 0x2029) && !(c >= 0xd800 && c <= 0xdfff) && c !== 0xfeff;
}

const YAML_ESCAPES: Record<string, string> = {
  '\0': '\\0', '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '\x1b': '\\e',
  '"': '\\"', '\\': '\\\\', '\x85': '\\N', '\xa0': '\\_', '\u2028': '\\L', '\u2029': '\\P',
};

/** A YAML double-quoted scalar's content as js-yaml and eemeli/yaml write it (no line folding). */
function yamlDoubleInner(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const named = YAML_ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ch;
  }
  return out;
}

/** encodeURIComponent plus the characters it leaves that Go's QueryEscape encodes. */
function strictUrl(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const lowerHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

function base64(bytes: Buffer): string {
  return bytes.toString('base64');
}

/**
 * The part of the base64 text of `value` that stays the same whatever bytes surround it, for each of
 * the three positions the value can start at inside a longer encoded text.
 */
function alignedBase64(value: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = base64(Buffer.concat([Buffer.alloc(offset), value])).replace(/=+$/, '');
    // Leading characters that also carry bits of the prefix, trailing ones that carry bits of what follows.
    const head = offset === 0 ? 0 : offset + 1;
    const tail = (offset + value.length) % 3 === 0 ? 0 : 1;
    const stable = encoded.slice(head, encoded.length - tail);
    if (stable.length >= MIN_ALIGNED) out.push(stable);
  }
  return out;
}

/** Every form of one value that masking hides. */
export function encodedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  const escaped = [jsonInner(value), goJsonInner(value), asciiJsonInner(value), goQuoteInner(value, false), goQuoteInner(value, true), yamlDoubleInner(value), value.replace(/'/g, "''")];
  for (const e of escaped) forms.add(e);
  // Quoted twice: a Kubernetes error quoting the value, inside a JSON log line or another quoted message.
  for (const once of [jsonInner(value), goQuoteInner(value, false)]) {
    forms.add(jsonInner(once));
    forms.add(goQuoteInner(once, false));
  }
  const url = [encodeURIComponent(value), strictUrl(value), strictUrl(value).replace(/%20/g, '+'), encodeURIComponent(value).replace(/%20/g, '+')];
  for (const u of url) {
    forms.add(u);
    forms.add(lowerHex(u));
  }
  const bytes = Buffer.from(value, 'utf8');
  const b64 = base64(bytes);
  forms.add(b64);
  forms.add(b64.replace(/=+$/, ''));
  forms.add(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  // Inside a longer encoded text: the value itself, or JSON-escaped (a .dockerconfigjson, a JSON config file).
  for (const inner of new Set([value, jsonInner(value)])) {
    for (const a of alignedBase64(Buffer.from(inner, 'utf8'))) {
      forms.add(a);
      forms.add(a.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  forms.delete('');
  return [...forms];
}

const needleCache = new Map<string, string[]>();

/** The strings to hide for a list of sensitive values: every encoded form of each, longest first. */
export function maskNeedles(sensitiveValues: readonly string[]): string[] {
  const key = sensitiveValues.join('\u0000');
  const hit = needleCache.get(key);
  if (hit) return hit;
  const set = new Set<string>();
  for (const v of sensitiveValues) {
    if (v === '') continue;
    for (const f of encodedForms(v)) set.add(f);
  }
  const needles = [...set].sort((a, b) => b.length - a.length);
  if (needleCache.size >= 200) needleCache.clear();
  needleCache.set(key, needles);
  return needles;
}

function maskString(text: string, needles: readonly string[]): string {
  let out = text;
  for (const n of needles) {
    if (out === n) return MASK;
    if (n.length >= MIN_SUBSTRING && out.includes(n)) out = out.split(n).join(MASK);
  }
  return out;
}

/** `text` with every form of every sensitive value masked. */
export function maskText(text: string, sensitiveValues: readonly string[]): string {
  const needles = maskNeedles(sensitiveValues);
  return needles.length === 0 ? text : maskString(text, needles);
}

export interface MaskOptions {
  /**
   * Mask object keys too (output shown to people: `baton render`, previews). Off for data that is read
   * back (status files), whose keys are field names. Two keys that mask alike are told apart by a suffix.
   */
  keys?: boolean;
}

/**
 * Returns a copy of `value` (a string or any JSON-like value) with sensitive values masked in every
 * string value and, with `keys`, in object keys.
 */
export function maskSensitive<T>(value: T, sensitiveValues: readonly string[], options: MaskOptions = {}): T {
  const needles = maskNeedles(sensitiveValues);
  if (needles.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskString(v, needles);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        let key = options.keys ? maskString(k, needles) : k;
        for (let i = 2; key !== k && Object.hasOwn(out, key); i++) key = `${maskString(k, needles)}#${i}`;
        Object.defineProperty(out, key, { value: walk(x), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** A masker bound to one list of sensitive values, for code that masks many messages. */
export type Masker = (text: string) => string;

export function maskerFor(sensitiveValues: readonly string[]): Masker {
  return (text) => maskText(text, sensitiveValues);
}
