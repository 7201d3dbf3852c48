/**
 * JavaScript definitions of Go template built-ins and Sprig functions, for the functions Baton's template
 * sandbox does not provide (yet) with Sprig's semantics. A translated template calls every function by its
 * Sprig name (`trimSuffix('-', x)`), so its body is the same whether the sandbox has the helper or not; a
 * definition is prepended only for the functions that are missing. Each is one arrow function with Sprig's
 * argument order (the piped value last).
 */
export interface Shim {
  /** Other shims (or sandbox helpers) this definition calls. */
  deps: string[];
  code: string;
}

const HAS = 'Object.prototype.hasOwnProperty.call';

export const SHIMS: Record<string, Shim> = {
  // Go's truth: false, 0, nil, "" and empty collections are false.
  goTruth: { deps: [], code: "(v) => !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0))" },
  // fmt.Sprint of one value: nil is <no value>, slices [a b], maps map[k:v] with sorted keys.
  goPrint: {
    deps: [],
    code: "(v) => v === undefined || v === null ? '<no value>' : typeof v === 'string' ? v : Array.isArray(v) ? '[' + v.map(goPrint).join(' ') + ']' : typeof v === 'object' ? 'map[' + Object.keys(v).sort().map((k) => k + ':' + goPrint(v[k])).join(' ') + ']' : String(v)",
  },
  goLen: { deps: [], code: "(v) => v === undefined || v === null ? 0 : typeof v === 'string' || Array.isArray(v) ? v.length : typeof v === 'object' ? Object.keys(v).length : (() => { throw new Error('len of a ' + typeof v); })()" },
  goIndex: { deps: [], code: `(v, ...ks) => ks.reduce((o, k) => (o === undefined || o === null || !${HAS}(o, k) ? null : o[k]), v)` },
  // range: [index, element] of a list, [key, value] of a map in sorted key order (as Go), 0..n-1 of an integer.
  goRange: {
    deps: [],
    code: "(v) => v === undefined || v === null ? [] : Array.isArray(v) ? v.map((x, i) => [i, x]) : typeof v === 'object' ? Object.keys(v).sort().map((k) => [k, v[k]]) : typeof v === 'number' ? Array.from({ length: Math.max(0, v) }, (_, i) => [i, i]) : (() => { throw new Error('range over a ' + typeof v); })()",
  },
  // print: spaces between operands when neither is a string.
  goSprint: { deps: ['goPrint'], code: "(...a) => a.map((x, i) => (i > 0 && typeof x !== 'string' && typeof a[i - 1] !== 'string' ? ' ' : '') + goPrint(x)).join('')" },
  printf: {
    deps: ['goPrint'],
    code:
      "(f, ...a) => { let i = 0; return String(f).replace(/%([-+# 0]*)(\\d*)(?:\\.(\\d+))?([sdvqftxX%])/g, (m, fl, w, p, c) => { if (c === '%') return '%'; const x = a[i++]; let s = c === 'd' ? String(Math.trunc(Number(x))) : c === 'f' ? Number(x).toFixed(p === undefined ? 6 : Number(p)) : c === 'q' ? JSON.stringify(goPrint(x)) : c === 'x' ? (typeof x === 'number' ? x.toString(16) : Array.from(String(x), (ch) => ch.charCodeAt(0).toString(16).padStart(2, '0')).join('')) : c === 'X' ? (typeof x === 'number' ? x.toString(16) : Array.from(String(x), (ch) => ch.charCodeAt(0).toString(16).padStart(2, '0')).join('')).toUpperCase() : goPrint(x); if (c === 's' && p !== undefined) s = s.slice(0, Number(p)); if (c === 'd' && fl.includes('+') && Number(x) >= 0) s = '+' + s; const width = Number(w || 0); return s.length >= width ? s : fl.includes('-') ? s.padEnd(width) : s.padStart(width, fl.includes('0') && c !== 's' ? '0' : ' '); }); }",
  },
  toString: { deps: ['goPrint'], code: '(v) => goPrint(v)' },
  empty: { deps: ['goTruth'], code: '(v) => !goTruth(v)' },
  dflt: { deps: ['empty'], code: '(d, v) => (empty(v) ? d : v)' },
  coalesce: { deps: ['empty'], code: '(...a) => { for (const x of a) if (!empty(x)) return x; return null; }' },
  ternary: { deps: ['goTruth'], code: '(a, b, c) => (goTruth(c) ? a : b)' },
  required: { deps: [], code: "(msg, v) => { if (v === undefined || v === null || v === '') throw new Error(String(msg)); return v; }" },
  // Sprig's squote wraps in single quotes without escaping (Baton's squote makes YAML single-quoted text).
  sprigSquote: { deps: ['goPrint'], code: "(...a) => a.filter((x) => x !== undefined && x !== null).map((x) => \"'\" + goPrint(x) + \"'\").join(' ')" },
  trim: { deps: [], code: '(s) => String(s).trim()' },
  trimAll: { deps: [], code: '(c, s) => { const set = String(c); const a = String(s); let i = 0; let j = a.length; while (i < j && set.includes(a[i])) i++; while (j > i && set.includes(a[j - 1])) j--; return a.slice(i, j); }' },
  trimSuffix: { deps: [], code: '(x, s) => { const a = String(s); const b = String(x); return b !== \'\' && a.endsWith(b) ? a.slice(0, a.length - b.length) : a; }' },
  trimPrefix: { deps: [], code: "(x, s) => { const a = String(s); const b = String(x); return b !== '' && a.startsWith(b) ? a.slice(b.length) : a; }" },
  lower: { deps: [], code: '(s) => String(s).toLowerCase()' },
  upper: { deps: [], code: '(s) => String(s).toUpperCase()' },
  title: { deps: [], code: '(s) => String(s).replace(/(^|[^\\p{L}\\p{N}_\'])(\\p{L})/gu, (m, p, c) => p + c.toUpperCase())' },
  replace: { deps: [], code: '(o, n, s) => String(s).split(String(o)).join(String(n))' },
  contains: { deps: [], code: '(sub, s) => String(s).includes(String(sub))' },
  hasPrefix: { deps: [], code: '(p, s) => String(s).startsWith(String(p))' },
  hasSuffix: { deps: [], code: '(x, s) => String(s).endsWith(String(x))' },
  repeat: { deps: [], code: '(n, s) => String(s).repeat(Math.max(0, n))' },
  substr: { deps: [], code: '(a, b, s) => { const t = String(s); if (a < 0) return t.slice(0, b); if (b < 0 || b > t.length) return t.slice(a); return t.slice(a, b); }' },
  trunc: { deps: [], code: '(n, s) => { const t = String(s); return n < 0 ? (t.length + n > 0 ? t.slice(t.length + n) : t) : t.slice(0, n); }' },
  // Sprig's split returns a map {_0: ..., _1: ...} (Baton's split returns a list).
  sprigSplit: { deps: [], code: "(sep, s) => { const o = {}; String(s).split(String(sep)).forEach((p, i) => { o['_' + i] = p; }); return o; }" },
  splitList: { deps: [], code: '(sep, s) => String(s).split(String(sep))' },
  join: { deps: ['goPrint'], code: '(sep, l) => (Array.isArray(l) ? l : l === undefined || l === null ? [] : [l]).filter((x) => x !== undefined && x !== null).map(goPrint).join(String(sep))' },
  list: { deps: [], code: '(...a) => a' },
  dict: { deps: ['goPrint'], code: "(...a) => { const o = {}; for (let i = 0; i < a.length; i += 2) o[goPrint(a[i])] = i + 1 < a.length ? a[i + 1] : ''; return o; }" },
  get: { deps: [], code: `(d, k) => (d !== undefined && d !== null && ${HAS}(d, k) ? d[k] : '')` },
  set: { deps: [], code: '(d, k, v) => { d[k] = v; return d; }' },
  hasKey: { deps: [], code: `(d, k) => d !== undefined && d !== null && ${HAS}(d, k)` },
  keys: { deps: [], code: '(...ds) => ds.flatMap((d) => Object.keys(d || {}))' },
  values: { deps: [], code: '(d) => Object.values(d || {})' },
  pick: { deps: [], code: `(d, ...ks) => { const o = {}; for (const k of ks) if (d && ${HAS}(d, k)) o[k] = d[k]; return o; }` },
  omit: { deps: [], code: '(d, ...ks) => { const o = {}; for (const k of Object.keys(d || {})) if (!ks.includes(k)) o[k] = d[k]; return o; }' },
  merge: {
    deps: [],
    code: "(dst, ...srcs) => { const m = (a, b) => { for (const k of Object.keys(b || {})) { if (a[k] === undefined) a[k] = b[k]; else if (a[k] && b[k] && typeof a[k] === 'object' && typeof b[k] === 'object' && !Array.isArray(a[k])) a[k] = m({ ...a[k] }, b[k]); } return a; }; return srcs.reduce(m, dst); }",
  },
  first: { deps: [], code: '(l) => (l === undefined || l === null || l.length === 0 ? null : l[0])' },
  last: { deps: [], code: '(l) => (l === undefined || l === null || l.length === 0 ? null : l[l.length - 1])' },
  has: { deps: [], code: '(x, l) => Array.isArray(l) && l.some((y) => y === x)' },
  uniq: { deps: [], code: '(l) => l.filter((x, i) => l.indexOf(x) === i)' },
  compact: { deps: ['empty'], code: '(l) => l.filter((x) => !empty(x))' },
  // cast.ToInt: numbers truncate, booleans are 0/1, strings that are not integers are 0.
  int: { deps: [], code: "(v) => typeof v === 'number' ? Math.trunc(v) : typeof v === 'boolean' ? (v ? 1 : 0) : /^\\s*[+-]?\\d+\\s*$/.test(String(v)) ? parseInt(String(v), 10) : 0" },
  float64: { deps: [], code: "(v) => typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : /^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$/.test(String(v)) ? parseFloat(String(v)) : 0" },
  atoi: { deps: [], code: "(s) => (/^\\s*[+-]?\\d+\\s*$/.test(String(s)) ? parseInt(String(s), 10) : 0)" },
  add: { deps: ['int'], code: '(...a) => a.reduce((s, x) => s + int(x), 0)' },
  add1: { deps: ['int'], code: '(x) => int(x) + 1' },
  sub: { deps: ['int'], code: '(a, b) => int(a) - int(b)' },
  mul: { deps: ['int'], code: '(...a) => a.reduce((s, x) => s * int(x), 1)' },
  div: { deps: ['int'], code: '(a, b) => Math.trunc(int(a) / int(b))' },
  mod: { deps: ['int'], code: '(a, b) => int(a) % int(b)' },
  max: { deps: ['int'], code: '(a, ...r) => r.reduce((m, x) => Math.max(m, int(x)), int(a))' },
  min: { deps: ['int'], code: '(a, ...r) => r.reduce((m, x) => Math.min(m, int(x)), int(a))' },
  until: { deps: ['int'], code: '(n) => Array.from({ length: Math.max(0, int(n)) }, (_, i) => i)' },
  fromJson: { deps: [], code: '(s) => { try { return JSON.parse(String(s)); } catch (e) { return {}; } }' },
  sha256sum: { deps: ['sha256'], code: '(s) => sha256(String(s))' },
};

/** The definitions for `names` and what they depend on, dependencies first; names the sandbox has are skipped. */
export function shimPreamble(names: Iterable<string>, available: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const done = new Set<string>();
  const visit = (name: string): void => {
    if (done.has(name) || available.has(name)) return;
    done.add(name);
    const shim = SHIMS[name];
    if (!shim) return;
    for (const d of shim.deps) visit(d);
    out.push(`const ${name} = ${shim.code};`);
  };
  for (const n of [...names].sort()) visit(n);
  return out;
}

/** How YAML reads a plain scalar's text (Go inserts text; YAML then types it): numbers, booleans, null, else the string. */
SHIMS.yamlPlain = {
  deps: [],
  code: "(s) => /^[-+]?(0|[1-9][0-9]*)$/.test(s) ? Number(s) : /^[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(s) ? Number(s) : /^(true|True|TRUE)$/.test(s) ? true : /^(false|False|FALSE)$/.test(s) ? false : /^(null|Null|NULL|~|)$/.test(s) ? null : s",
};
