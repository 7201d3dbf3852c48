/**
 * Template helpers that framework authors know from Helm, Sprig and KUDO, as source text evaluated inside
 * the sandbox's vm context. Names and argument order are Sprig's (the piped value LAST:
 * `trimSuffix('-', s)`, `replace('a', 'b', s)`), so KUDO/Helm templates translate one to one;
 * `default` is a JavaScript reserved word: `dflt(d, v)` is Sprig's `default`, `fallback(v, d)` the
 * null-only variant. docs/templates.md lists every helper with an example; test/render/helpers.test.ts
 * tests each one.
 *
 * Evaluates to `function (deps) -> { helpers }`; it must not contain backticks or dollar-brace sequences.
 */
export const SPRIG_HELPER_NAMES = [
  'dflt', 'empty', 'coalesce', 'ternary', 'squote', 'sha256sum', 'sha1sum', 'trim', 'trimAll', 'trimSuffix', 'trimPrefix', 'lower', 'upper', 'title',
  'replace', 'contains', 'hasPrefix', 'hasSuffix', 'repeat', 'substr', 'nospace', 'kebabcase', 'snakecase', 'camelcase', 'abbrev', 'split', 'splitList', 'join',
  'list', 'dict', 'get', 'set', 'unset', 'hasKey', 'keys', 'values', 'pick', 'omit', 'merge', 'mergeOverwrite', 'dig', 'deepCopy', 'first', 'last', 'rest', 'initial',
  'append', 'prepend', 'concat', 'reverse', 'has', 'without', 'uniq', 'compact', 'sortAlpha', 'len', 'toString', 'toStrings', 'int', 'int64', 'float64', 'atoi',
  'add', 'add1', 'sub', 'mul', 'div', 'mod', 'max', 'min', 'addf', 'subf', 'mulf', 'divf', 'floor', 'ceil', 'round', 'until', 'untilStep', 'seq',
  'fromJson', 'fromYaml', 'semver', 'semverCompare', 'printf', 'kindIs', 'typeOf', 'fail', 'shellQuote',
] as const;

export const HELPERS_SOURCE = String.raw`
(function (deps) {
  'use strict';
  var Object = deps.Object, String = deps.String, Number = deps.Number, Math = deps.Math, JSONparse = deps.JSONparse, JSONstringify = deps.JSONstringify;
  var isArray = deps.isArray, isFinite = deps.isFinite, ObjectKeys = Object.keys, hasOwn = Object.prototype.hasOwnProperty;
  var defineProperty = deps.defineProperty, Error = deps.Error, sha256 = deps.sha256, dq = deps.dq, yaml = deps.yaml;

  function str(v) { return v === undefined || v === null ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSONstringify(v) : String(v); }
  function isMap(v) { return v !== null && typeof v === 'object' && !isArray(v); }
  function put(o, k, v) { defineProperty(o, String(k), { value: v, writable: true, enumerable: true, configurable: true }); return o; }
  function need(cond, message) { if (!cond) throw new Error(message); }

  // Sprig's notion of empty: null/undefined, false, 0, "", an empty list or map.
  function empty(v) {
    if (v === undefined || v === null || v === false || v === 0 || v === '') return true;
    if (isArray(v)) return v.length === 0;
    if (typeof v === 'object') return ObjectKeys(v).length === 0;
    return false;
  }
  function dflt(d, v) { return empty(v) ? d : v; }
  function coalesce() { for (var i = 0; i < arguments.length; i++) if (!empty(arguments[i])) return arguments[i]; return null; }
  function ternary(a, b, cond) { return cond ? a : b; }

  var SINGLE_UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
  function squote(v) { var s = str(v); return SINGLE_UNSAFE.test(s) ? dq(s) : "'" + s.split("'").join("''") + "'"; }
  function shellQuote(v) { return "'" + str(v).split("'").join("'\\''") + "'"; }

  function sha1sum(v) {
    var s = deps.utf8(str(v)), l = s.length * 8;
    s.push(0x80);
    while (s.length % 64 !== 56) s.push(0);
    for (var i = 7; i >= 0; i--) s.push(i >= 4 ? 0 : (l >>> (i * 8)) & 255);
    var h0 = 0x67452301, h1 = 0xefcdab89, h2 = 0x98badcfe, h3 = 0x10325476, h4 = 0xc3d2e1f0, w = new deps.Array(80);
    for (var o = 0; o < s.length; o += 64) {
      for (var t = 0; t < 16; t++) w[t] = (s[o + t * 4] << 24) | (s[o + t * 4 + 1] << 16) | (s[o + t * 4 + 2] << 8) | s[o + t * 4 + 3];
      for (t = 16; t < 80; t++) { var x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]; w[t] = (x << 1) | (x >>> 31); }
      var a = h0, b = h1, c = h2, d = h3, e = h4;
      for (t = 0; t < 80; t++) {
        var f = t < 20 ? ((b & c) | (~b & d)) + 0x5a827999 : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1 : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc : (b ^ c ^ d) + 0xca62c1d6;
        var tmp = (((a << 5) | (a >>> 27)) + f + e + w[t]) | 0;
        e = d; d = c; c = (b << 30) | (b >>> 2); b = a; a = tmp;
      }
      h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0; h4 = (h4 + e) | 0;
    }
    return [h0, h1, h2, h3, h4].map(function (v) { return ('00000000' + (v >>> 0).toString(16)).slice(-8); }).join('');
  }

  var WS = ' \t\n\r\v\f';
  function trimChars(s, cut, left, right) {
    var a = 0, b = s.length;
    if (left) while (a < b && cut.indexOf(s[a]) >= 0) a++;
    if (right) while (b > a && cut.indexOf(s[b - 1]) >= 0) b--;
    return s.slice(a, b);
  }
  function trim(s) { return trimChars(str(s), WS, true, true); }
  function trimAll(cut, s) { return trimChars(str(s), str(cut), true, true); }
  function trimSuffix(suffix, s) { s = str(s); suffix = str(suffix); return suffix !== '' && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s; }
  function trimPrefix(prefix, s) { s = str(s); prefix = str(prefix); return prefix !== '' && s.startsWith(prefix) ? s.slice(prefix.length) : s; }
  function lower(s) { return str(s).toLowerCase(); }
  function upper(s) { return str(s).toUpperCase(); }
  function title(s) { return str(s).replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, function (m, p, c) { return p + c.toUpperCase(); }); }
  function replace(from, to, s) { return str(s).split(str(from)).join(str(to)); }
  function contains(sub, s) { return str(s).indexOf(str(sub)) >= 0; }
  function hasPrefix(p, s) { return str(s).startsWith(str(p)); }
  function hasSuffix(p, s) { return str(s).endsWith(str(p)); }
  function repeat(n, s) { need(n >= 0 && n <= 1e6, 'repeat: count must be between 0 and 1000000'); return str(s).repeat(n); }
  function substr(start, end, s) {
    s = str(s);
    if (start < 0) return s.slice(0, end);
    if (end < 0 || end > s.length) return s.slice(start);
    return s.slice(start, end);
  }
  function nospace(s) { return str(s).replace(/\s+/g, ''); }
  function words(s) { return str(s).replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/).filter(function (w) { return w !== ''; }); }
  function kebabcase(s) { return words(s).join('-').toLowerCase(); }
  function snakecase(s) { return words(s).join('_').toLowerCase(); }
  function camelcase(s) { return words(s).map(function (w) { return w[0].toUpperCase() + w.slice(1); }).join(''); }
  function abbrev(n, s) { s = str(s); return s.length <= n ? s : n < 4 ? s.slice(0, n) : s.slice(0, n - 3) + '...'; }
  function splitList(sep, s) { return str(s).split(str(sep)); }
  function join(sep, l) { if (l === undefined || l === null) return ''; return (isArray(l) ? l : [l]).map(str).join(str(sep)); }

  function list() { return deps.Array.prototype.slice.call(arguments); }
  function dict() {
    var o = {};
    for (var i = 0; i + 1 < arguments.length; i += 2) put(o, arguments[i], arguments[i + 1]);
    if (arguments.length % 2 === 1) put(o, arguments[arguments.length - 1], '');
    return o;
  }
  function get(d, k) { return isMap(d) && hasOwn.call(d, k) ? d[k] : ''; }
  function set(d, k, v) { need(isMap(d), 'set: the first argument must be a mapping'); return put(d, k, v); }
  function unset(d, k) { need(isMap(d), 'unset: the first argument must be a mapping'); delete d[k]; return d; }
  function hasKey(d, k) { return isMap(d) && hasOwn.call(d, k); }
  function keys() { var out = []; for (var i = 0; i < arguments.length; i++) if (isMap(arguments[i])) out.push.apply(out, ObjectKeys(arguments[i])); return out; }
  function values(d) { return isMap(d) ? ObjectKeys(d).map(function (k) { return d[k]; }) : []; }
  function pick(d) { var o = {}, ks = deps.Array.prototype.slice.call(arguments, 1); ks.forEach(function (k) { if (isMap(d) && hasOwn.call(d, k)) put(o, k, d[k]); }); return o; }
  function omit(d) { var o = {}, ks = deps.Array.prototype.slice.call(arguments, 1).map(String); if (isMap(d)) ObjectKeys(d).forEach(function (k) { if (ks.indexOf(k) < 0) put(o, k, d[k]); }); return o; }
  function deepCopy(v) {
    if (isArray(v)) return v.map(deepCopy);
    if (isMap(v)) { var o = {}; ObjectKeys(v).forEach(function (k) { put(o, k, deepCopy(v[k])); }); return o; }
    return v;
  }
  function mergeInto(dst, src, overwrite, depth) {
    need(depth < 100, 'merge: values nested more than 100 levels');
    ObjectKeys(src).forEach(function (k) {
      var s = src[k];
      if (hasOwn.call(dst, k) && isMap(dst[k]) && isMap(s)) mergeInto(dst[k], s, overwrite, depth + 1);
      else if (!hasOwn.call(dst, k) || overwrite) put(dst, k, deepCopy(s));
    });
  }
  // Sprig: deep merge into dst, values already in dst win (mergeOverwrite: later sources win). Returns dst.
  function merge(dst) { need(isMap(dst), 'merge: the first argument must be a mapping (e.g. dict())'); for (var i = 1; i < arguments.length; i++) if (isMap(arguments[i])) mergeInto(dst, arguments[i], false, 0); return dst; }
  function mergeOverwrite(dst) { need(isMap(dst), 'mergeOverwrite: the first argument must be a mapping (e.g. dict())'); for (var i = 1; i < arguments.length; i++) if (isMap(arguments[i])) mergeInto(dst, arguments[i], true, 0); return dst; }
  // dig('a', 'b', default, d): d.a.b, or default when a key is missing.
  function dig() {
    need(arguments.length >= 3, 'dig needs keys, a default and a mapping: dig("a", "b", "default", d)');
    var d = arguments[arguments.length - 1], fallbackValue = arguments[arguments.length - 2];
    for (var i = 0; i < arguments.length - 2; i++) {
      if (!isMap(d) || !hasOwn.call(d, arguments[i])) return fallbackValue;
      d = d[arguments[i]];
    }
    return d;
  }

  function asList(l, name) { need(l === undefined || l === null || isArray(l), name + ': expected a list'); return l || []; }
  function first(l) { l = asList(l, 'first'); return l.length > 0 ? l[0] : null; }
  function last(l) { l = asList(l, 'last'); return l.length > 0 ? l[l.length - 1] : null; }
  function rest(l) { return asList(l, 'rest').slice(1); }
  function initial(l) { return asList(l, 'initial').slice(0, -1); }
  function append(l, v) { return asList(l, 'append').concat([v]); }
  function prepend(l, v) { return [v].concat(asList(l, 'prepend')); }
  function concat() { var out = []; for (var i = 0; i < arguments.length; i++) out = out.concat(asList(arguments[i], 'concat')); return out; }
  function reverse(l) { return asList(l, 'reverse').slice().reverse(); }
  function same(a, b) { return a === b || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && JSONstringify(a) === JSONstringify(b)); }
  function has(needle, l) { return asList(l, 'has').some(function (x) { return same(x, needle); }); }
  function without(l) { var out = asList(l, 'without'), drop = deps.Array.prototype.slice.call(arguments, 1); return out.filter(function (x) { return !drop.some(function (d) { return same(x, d); }); }); }
  function uniq(l) { var out = []; asList(l, 'uniq').forEach(function (x) { if (!out.some(function (y) { return same(x, y); })) out.push(x); }); return out; }
  function compact(l) { return asList(l, 'compact').filter(function (x) { return !empty(x); }); }
  function sortAlpha(l) { return asList(l, 'sortAlpha').map(str).sort(); }
  function len(v) { return v === undefined || v === null ? 0 : typeof v === 'string' || isArray(v) ? v.length : typeof v === 'object' ? ObjectKeys(v).length : str(v).length; }

  function toString(v) { return str(v); }
  function toStrings(l) { return asList(l, 'toStrings').map(str); }
  function toNumber(v) {
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'string' && v.trim() !== '') { var n = Number(v.trim()); return n === n ? n : 0; }
    return 0;
  }
  function int(v) { var n = toNumber(v); return isFinite(n) ? Math.trunc(n) : 0; }
  function float64(v) { return toNumber(v); }
  function atoi(s) { var t = str(s).trim(); return /^[+-]?\d+$/.test(t) ? Number(t) : 0; }
  function ints(args) { return deps.Array.prototype.map.call(args, int); }
  function add() { return ints(arguments).reduce(function (a, b) { return a + b; }, 0); }
  function add1(v) { return int(v) + 1; }
  function sub(a, b) { return int(a) - int(b); }
  function mul() { return ints(arguments).reduce(function (a, b) { return a * b; }, 1); }
  function div(a, b) { need(int(b) !== 0, 'div: division by zero'); return Math.trunc(int(a) / int(b)); }
  function mod(a, b) { need(int(b) !== 0, 'mod: division by zero'); return int(a) % int(b); }
  function max() { return Math.max.apply(Math, ints(arguments)); }
  function min() { return Math.min.apply(Math, ints(arguments)); }
  function floats(args) { return deps.Array.prototype.map.call(args, toNumber); }
  function addf() { return floats(arguments).reduce(function (a, b) { return a + b; }, 0); }
  function subf(a, b) { return toNumber(a) - toNumber(b); }
  function mulf() { return floats(arguments).reduce(function (a, b) { return a * b; }, 1); }
  function divf(a, b) { need(toNumber(b) !== 0, 'divf: division by zero'); return toNumber(a) / toNumber(b); }
  function floor(v) { return Math.floor(toNumber(v)); }
  function ceil(v) { return Math.ceil(toNumber(v)); }
  function round(v, places) { var f = Math.pow(10, int(places)); return Math.round(toNumber(v) * f) / f; }
  var MAX_LIST = 100000;
  function untilStep(start, stop, step) {
    start = int(start); stop = int(stop); step = int(step);
    need(step !== 0, 'untilStep: step must not be 0');
    var out = [];
    for (var i = start; step > 0 ? i < stop : i > stop; i += step) { out.push(i); need(out.length <= MAX_LIST, 'until: more than 100000 items'); }
    return out;
  }
  function until(n) { return untilStep(0, n, int(n) >= 0 ? 1 : -1); }
  // Sprig's seq, like the shell's: seq(5) "1 2 3 4 5", seq(2, 5), seq(0, 2, 10); a string.
  function seq() {
    var a = ints(arguments), start = 1, step = 1, end;
    if (a.length === 1) end = a[0];
    else if (a.length === 2) { start = a[0]; end = a[1]; step = start <= end ? 1 : -1; }
    else if (a.length === 3) { start = a[0]; step = a[1]; end = a[2]; }
    else throw new Error('seq takes 1 to 3 numbers');
    if (step === 0 || (step > 0 && start > end) || (step < 0 && start < end)) return '';
    var out = [];
    for (var i = start; step > 0 ? i <= end : i >= end; i += step) { out.push(i); need(out.length <= MAX_LIST, 'seq: more than 100000 numbers'); }
    return out.join(' ');
  }

  function fromJson(s) {
    try { return JSONparse(str(s)); } catch (e) { throw new Error('fromJson: not valid JSON: ' + String(e && e.message)); }
  }
  function fromYaml(s) {
    need(yaml !== undefined, 'fromYaml is not available in this sandbox');
    try { return yaml.load(str(s), { schema: yaml.CORE_SCHEMA, json: false }); } catch (e) { throw new Error('fromYaml: ' + String(e && e.reason || e && e.message)); }
  }

  // Semantic versions and constraints as Sprig (Masterminds/semver) reads them: an optional v, missing
  // minor/patch as 0; constraints = alternatives joined by ||, each a list of comparisons joined by
  // commas or spaces: =, !=, >, <, >=, <=, ~ (patch-level), ^ (same major), x/* wildcards, a - b ranges.
  var SEMVER = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;
  function parseVersion(v, loose) {
    var m = SEMVER.exec(str(v).trim());
    if (!m || (!loose && (m[2] === undefined || m[3] === undefined) && false)) throw new Error('not a semantic version: ' + JSONstringify(str(v)));
    return { major: Number(m[1]), minor: Number(m[2] || 0), patch: Number(m[3] || 0), pre: m[4] || '', meta: m[5] || '' };
  }
  function comparePre(a, b) {
    if (a === b) return 0;
    if (a === '') return 1;
    if (b === '') return -1;
    var x = a.split('.'), y = b.split('.');
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      if (x[i] === undefined) return -1;
      if (y[i] === undefined) return 1;
      var nx = /^\d+$/.test(x[i]), ny = /^\d+$/.test(y[i]);
      if (nx && ny) { var d = Number(x[i]) - Number(y[i]); if (d !== 0) return d < 0 ? -1 : 1; }
      else if (nx !== ny) return nx ? -1 : 1;
      else if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    }
    return 0;
  }
  function cmpVersion(a, b) {
    if (a.major !== b.major) return a.major < b.major ? -1 : 1;
    if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
    if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
    return comparePre(a.pre, b.pre);
  }
  function semver(v) {
    var p = parseVersion(v, true);
    return { major: p.major, minor: p.minor, patch: p.patch, prerelease: p.pre, metadata: p.meta, original: str(v),
      Major: p.major, Minor: p.minor, Patch: p.patch, Prerelease: p.pre, Metadata: p.meta, Original: str(v) };
  }
  var WILD = /^(x|X|\*)$/;
  function partial(text) {
    var m = /^v?(\d+|x|X|\*)(?:\.(\d+|x|X|\*))?(?:\.(\d+|x|X|\*))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text);
    if (!m) throw new Error('semverCompare: cannot read the constraint version ' + JSONstringify(text));
    var parts = [m[1], m[2], m[3]], n = 0;
    while (n < 3 && parts[n] !== undefined && !WILD.test(parts[n])) n++;
    return { v: { major: n > 0 ? Number(parts[0]) : 0, minor: n > 1 ? Number(parts[1]) : 0, patch: n > 2 ? Number(parts[2]) : 0, pre: m[4] || '' }, given: n };
  }
  function bump(v, at) { return at === 0 ? { major: v.major + 1, minor: 0, patch: 0, pre: '' } : at === 1 ? { major: v.major, minor: v.minor + 1, patch: 0, pre: '' } : { major: v.major, minor: v.minor, patch: v.patch + 1, pre: '' }; }
  function between(v, low, high) { return cmpVersion(v, low) >= 0 && (high === null || cmpVersion(v, high) < 0); }
  function check(op, text, v) {
    var p = partial(text), c = p.v;
    switch (op) {
      case '': case '=':
        return p.given === 3 ? cmpVersion(v, c) === 0 : between(v, c, p.given === 0 ? null : bump(c, p.given - 1));
      case '!=': return !check('=', text, v);
      case '>': return p.given === 3 ? cmpVersion(v, c) > 0 : p.given === 0 ? false : cmpVersion(v, bump(c, p.given - 1)) >= 0;
      case '>=': return cmpVersion(v, c) >= 0;
      case '<': return cmpVersion(v, c) < 0;
      case '<=': return p.given === 3 ? cmpVersion(v, c) <= 0 : p.given === 0 ? true : cmpVersion(v, bump(c, p.given - 1)) < 0;
      case '~': return between(v, c, bump(c, p.given >= 2 ? 1 : 0));
      case '^':
        if (c.major > 0 || p.given === 1) return between(v, c, bump(c, 0));
        if (c.minor > 0 || p.given === 2) return between(v, c, bump(c, 1));
        return between(v, c, bump(c, 2));
    }
    throw new Error('semverCompare: unknown operator ' + op);
  }
  function semverCompare(constraint, version) {
    var v = parseVersion(version, true);
    return str(constraint).split('||').some(function (alt) {
      var a = alt.trim(), range = /^(\S+)\s+-\s+(\S+)$/.exec(a);
      if (range) return check('>=', range[1], v) && check('<=', range[2], v);
      var terms = a.replace(/(>=|<=|!=|=|>|<|~|\^)\s+/g, '$1').split(/[\s,]+/).filter(function (t) { return t !== ''; });
      if (terms.length === 0) return true;
      return terms.every(function (t) {
        var m = /^(>=|<=|!=|=|>|<|~|\^)?(.*)$/.exec(t);
        // Like Masterminds: a pre-release version satisfies only constraints that name a pre-release.
        if (v.pre !== '' && partial(m[2]).v.pre === '') return false;
        return check(m[1] || '', m[2], v);
      });
    });
  }

  // Go's fmt verbs that templates use: %s %d %v %q %f %x %X %o %b %t %e %g %%, with flags -+0 and space, width, precision.
  function printf(format) {
    var args = deps.Array.prototype.slice.call(arguments, 1), next = 0;
    return str(format).replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g, function (m, flags, width, prec, verb) {
      if (verb === '%') return '%';
      if (next >= args.length) return '%!' + verb + '(MISSING)';
      var a = args[next++], s;
      var p = prec === undefined ? undefined : Number(prec);
      switch (verb) {
        case 's': case 'v': s = str(a); if (p !== undefined) s = s.slice(0, p); break;
        case 'q': s = JSONstringify(str(a)); break;
        case 'd': s = String(int(a)); break;
        case 'f': case 'F': s = toNumber(a).toFixed(p === undefined ? 6 : p); break;
        case 'e': s = toNumber(a).toExponential(p === undefined ? 6 : p).replace(/e([+-])(\d)$/, 'e$10$2'); break;
        case 'g': s = p === undefined ? String(toNumber(a)) : String(Number(toNumber(a).toPrecision(p))); break;
        case 'x': s = typeof a === 'string' ? deps.utf8(a).map(function (b) { return ('0' + b.toString(16)).slice(-2); }).join('') : int(a).toString(16); break;
        case 'X': s = (typeof a === 'string' ? deps.utf8(a).map(function (b) { return ('0' + b.toString(16)).slice(-2); }).join('') : int(a).toString(16)).toUpperCase(); break;
        case 'o': s = int(a).toString(8); break;
        case 'b': s = int(a).toString(2); break;
        case 't': s = a ? 'true' : 'false'; break;
        default: return '%!' + verb + '(' + str(a) + ')';
      }
      if ((verb === 'd' || verb === 'f' || verb === 'e' || verb === 'g') && s[0] !== '-') {
        if (flags.indexOf('+') >= 0) s = '+' + s; else if (flags.indexOf(' ') >= 0) s = ' ' + s;
      }
      var w = width === undefined ? 0 : Number(width);
      if (s.length < w) {
        if (flags.indexOf('-') >= 0) s = s + ' '.repeat(w - s.length);
        else if (flags.indexOf('0') >= 0 && verb !== 's' && verb !== 'q' && verb !== 'v') {
          var sign = s[0] === '-' || s[0] === '+' ? s[0] : '';
          s = sign + '0'.repeat(w - s.length) + s.slice(sign.length);
        } else s = ' '.repeat(w - s.length) + s;
      }
      return s;
    });
  }

  function typeOf(v) {
    if (v === null || v === undefined) return '<nil>';
    if (isArray(v)) return '[]interface {}';
    switch (typeof v) {
      case 'string': return 'string';
      case 'boolean': return 'bool';
      case 'number': return deps.Number.isInteger(v) ? 'int' : 'float64';
      case 'object': return 'map[string]interface {}';
    }
    return typeof v;
  }
  var KINDS = { string: 'string', bool: 'bool', int: 'int', float64: 'float64', '[]interface {}': 'slice', 'map[string]interface {}': 'map', '<nil>': 'invalid' };
  function kindIs(kind, v) { return KINDS[typeOf(v)] === kind; }
  function fail(message) { throw new Error(str(message)); }

  return {
    dflt: dflt, empty: empty, coalesce: coalesce, ternary: ternary, squote: squote, sha256sum: sha256, sha1sum: sha1sum,
    trim: trim, trimAll: trimAll, trimSuffix: trimSuffix, trimPrefix: trimPrefix, lower: lower, upper: upper, title: title,
    replace: replace, contains: contains, hasPrefix: hasPrefix, hasSuffix: hasSuffix, repeat: repeat, substr: substr,
    nospace: nospace, kebabcase: kebabcase, snakecase: snakecase, camelcase: camelcase, abbrev: abbrev, split: splitList, splitList: splitList, join: join,
    list: list, dict: dict, get: get, set: set, unset: unset, hasKey: hasKey, keys: keys, values: values, pick: pick, omit: omit,
    merge: merge, mergeOverwrite: mergeOverwrite, dig: dig, deepCopy: deepCopy, first: first, last: last, rest: rest, initial: initial,
    append: append, prepend: prepend, concat: concat, reverse: reverse, has: has, without: without, uniq: uniq, compact: compact, sortAlpha: sortAlpha, len: len,
    toString: toString, toStrings: toStrings, int: int, int64: int, float64: float64, atoi: atoi,
    add: add, add1: add1, sub: sub, mul: mul, div: div, mod: mod, max: max, min: min, addf: addf, subf: subf, mulf: mulf, divf: divf,
    floor: floor, ceil: ceil, round: round, until: until, untilStep: untilStep, seq: seq,
    fromJson: fromJson, fromYaml: fromYaml, semver: semver, semverCompare: semverCompare, printf: printf,
    kindIs: kindIs, typeOf: typeOf, fail: fail, shellQuote: shellQuote,
  };
})
`;
