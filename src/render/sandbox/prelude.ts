/**
 * The JavaScript that runs first inside the template sandbox's vm context (never in the host realm):
 * template helpers, the YAML-safe escape, the `params` proxy, `include`, the render loop, and a lockdown
 * that removes nondeterminism (Date, Math.random, Intl, WeakRef) and freezes the intrinsics so one
 * template cannot change what another renders. It is a string so no host-realm function ever enters the
 * context. It must not contain backticks or dollar-brace sequences (it lives in a String.raw literal).
 *
 * Protocol: evaluating PRELUDE returns `{ define(key, file, fn), setInput(json), current() }` to the worker;
 * the worker then runs the script `__batonRun()`. A vm timeout skips `finally` blocks, so setInput also
 * resets the reentrancy flag. The worker (with a vm timeout), which renders the pending input and
 * returns the results as plain records.
 */
import { ESCAPE_SOURCE } from './escape-source.js';
import { HELPERS_SOURCE } from './helpers-source.js';

export const PRELUDE = String.raw`
(function (G) {
  'use strict';
  // Every built-in the prelude uses is captured once: global lookups in a vm context are slow.
  var Object = G.Object, Array = G.Array, String = G.String, Number = G.Number, Boolean = G.Boolean, JSON = G.JSON, Math = G.Math;
  var Error = G.Error, RangeError = G.RangeError, ReferenceError = G.ReferenceError, Map = G.Map, Set = G.Set, Proxy = G.Proxy;
  var Reflect = G.Reflect, isFinite = G.isFinite, parseInt = G.parseInt, parseFloat = G.parseFloat, isNaN = G.isNaN;
  var JSONparse = JSON.parse, JSONstringify = JSON.stringify;
  var ObjectKeys = Object.keys, ObjectCreate = Object.create, hasOwn = Object.prototype.hasOwnProperty, isArray = Array.isArray;
  ['Date', 'Intl', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'console'].forEach(function (n) { delete G[n]; });
  // ArrayBuffer memory lives outside the V8 heap, where the worker's heap limit does not reach (a
  // 3 GiB Uint8Array was allocated whole): no constructor of one is left, so nothing can allocate it.
  ['ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
    'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'].forEach(function (n) { delete G[n]; });
  // RegExp's legacy static properties (RegExp.input, $1-$9, lastMatch, leftContext...) hold the last
  // match of ANY regex run in this context, including one run by a helper on another instance's value.
  Object.getOwnPropertyNames(RegExp).forEach(function (n) {
    var d = Object.getOwnPropertyDescriptor(RegExp, n);
    if (d && (d.get || d.set) && !delete RegExp[n]) throw new Error('cannot remove RegExp.' + n);
  });
  Math.random = function () { throw new Error('Math.random is not available in templates: rendering must be deterministic'); };

  var defs = new Map();
  var input = '';
  var running = false;
  var current = { job: -1, file: '' };
  var MAX_OUTPUT = 4 * 1024 * 1024;

  function BatonTemplateError(kind, file, line, message) { this.kind = kind; this.file = file; this.line = line; this.column = 0; this.message = message; }

  function yamlScalar(v) {
    if (v === undefined || v === null) return 'null';
    if (typeof v === 'string') return JSONstringify(v);
    if (typeof v === 'number') return isFinite(v) ? String(v) : (v !== v ? '.nan' : (v > 0 ? '.inf' : '-.inf'));
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'bigint') return String(v);
    if (typeof v === 'object') { var s = JSONstringify(v); return s === undefined ? 'null' : s; }
    throw new Error('cannot print a ' + typeof v + ' into YAML');
  }

  // The escape function of <%= %>. Printing undefined is an error: it is almost always a misspelt property
  // (instance.nme, plan.phse) that would otherwise render a silent null. Helpers keep yamlScalar's null.
  var UNDEFINED_PRINTED = 'the expression printed undefined (a misspelt property?); print null explicitly or use fallback()';
  function printScalar(v) {
    if (v === void 0) throw new BatonTemplateError('undefined', null, null, UNDEFINED_PRINTED);
    if (typeof v === 'string') sized(v, 'the printed value');
    return sized(yamlScalar(v), 'the printed value');
  }
  // A value larger than a template's whole output limit can only fail: fail at once, saying so, instead
  // of spending the time limit escaping, hashing or encoding it (and being reported as an endless loop).
  function sized(s, what) {
    if (s.length > MAX_OUTPUT) throw new BatonTemplateError('output', null, null, what + ' is ' + (s.length / 1048576).toFixed(1) + ' MiB (' + s.length + ' characters): a template may output at most 4 MiB');
    return s;
  }
  // Functions and prototypes that every render shares are frozen: no render may leave data on them.
  Object.freeze(printScalar);
  Object.freeze(BatonTemplateError);
  Object.freeze(BatonTemplateError.prototype);

  var PLAIN = /^[A-Za-z_\/][A-Za-z0-9_.\/-]*$/;
  var RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
  function yamlKey(k) { return PLAIN.test(k) && !RESERVED.test(k) ? k : JSONstringify(k); }
  function yamlInline(v) {
    if (typeof v !== 'string') return yamlScalar(v);
    sized(v, 'a value given to toYaml');
    return PLAIN.test(v) && !RESERVED.test(v) ? v : JSONstringify(v);
  }
  function isCollection(v) { return v !== null && typeof v === 'object' && (isArray(v) ? v.length > 0 : ObjectKeys(v).length > 0); }
  function toYamlLines(v, pad, out, depth) {
    if (depth > 100) throw new Error('toYaml: value nested more than 100 levels');
    if (isArray(v)) {
      for (var i = 0; i < v.length; i++) {
        var item = v[i];
        if (isCollection(item) && !isArray(item)) {
          var sub = [];
          toYamlLines(item, '', sub, depth + 1);
          out.push(pad + '- ' + sub[0]);
          for (var j = 1; j < sub.length; j++) out.push(pad + '  ' + sub[j]);
        } else if (isCollection(item)) {
          out.push(pad + '-');
          toYamlLines(item, pad + '  ', out, depth + 1);
        } else out.push(pad + '- ' + yamlInline(item === undefined ? null : item));
      }
      return;
    }
    var keys = ObjectKeys(v);
    for (var k = 0; k < keys.length; k++) {
      var key = keys[k], val = v[key];
      if (val === undefined) continue;
      if (isCollection(val)) { out.push(pad + yamlKey(key) + ':'); toYamlLines(val, pad + '  ', out, depth + 1); }
      else out.push(pad + yamlKey(key) + ': ' + yamlInline(val));
    }
  }
  function toYaml(v) {
    if (typeof v === 'string') sized(v, 'the value given to toYaml');
    if (!isCollection(v)) return isArray(v) ? '[]' : (v !== null && typeof v === 'object' ? '{}' : yamlInline(v));
    var out = [];
    toYamlLines(v, '', out, 0);
    return sized(out.join('\n'), 'the output of toYaml');
  }
  function indent(n, s) {
    // A plain loop: the regex and split/map/join versions were the hottest helper in profiles.
    var p = ' '.repeat(n), str = sized(String(s), 'the text given to indent'), out = '', start = 0;
    for (;;) {
      var nl = str.indexOf('\n', start);
      var end = nl < 0 ? str.length : nl;
      if (end > start) out += p + str.slice(start, end);
      if (nl < 0) return out;
      out += '\n';
      start = nl + 1;
    }
  }
  function nindent(n, s) { return '\n' + indent(n, s); }
  function quote(v) { return escapers.dq(v === undefined || v === null ? '' : sized(String(v), 'the value given to quote')); }
  function toJson(v) { var s = JSONstringify(v); return s === undefined ? 'null' : sized(s, 'the output of toJson'); }
  // Sprig: a negative n keeps the last -n characters.
  function trunc(n, s) { s = String(s); return n >= 0 ? s.slice(0, n) : s.slice(s.length + n); }
  // Sprig order: required("message", value).
  function required(message, v) {
    if (v === undefined || v === null || v === '') throw new Error(typeof message === 'string' && message !== '' ? message : 'a required value is missing');
    return v;
  }
  function fallback(v, d) { return v === undefined || v === null ? d : v; }
  function dnsName() {
    var s = Array.prototype.slice.call(arguments).filter(function (p) { return p !== undefined && p !== null && p !== ''; }).join('-').toLowerCase();
    s = s.replace(/[^a-z0-9-]+/g, '-').slice(0, 63).replace(/^-+/, '').replace(/-+$/, '');
    return s;
  }

  function utf8(s) {
    var out = [];
    for (var i = 0; i < s.length; i++) {
      var c = s.codePointAt(i);
      if (c > 0xffff) i++;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  function fromUtf8(b) {
    var s = '', i = 0;
    while (i < b.length) {
      var c = b[i++];
      if (c >= 0xf0) c = ((c & 7) << 18) | ((b[i++] & 63) << 12) | ((b[i++] & 63) << 6) | (b[i++] & 63);
      else if (c >= 0xe0) c = ((c & 15) << 12) | ((b[i++] & 63) << 6) | (b[i++] & 63);
      else if (c >= 0xc0) c = ((c & 31) << 6) | (b[i++] & 63);
      s += String.fromCodePoint(c);
    }
    return s;
  }
  var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function b64enc(s) {
    var b = utf8(sized(String(s), 'the value given to b64enc')), out = '';
    for (var i = 0; i < b.length; i += 3) {
      var n = (b[i] << 16) | ((b[i + 1] || 0) << 8) | (b[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < b.length ? B64[n & 63] : '=');
    }
    return out;
  }
  function b64dec(s) {
    var clean = sized(String(s), 'the value given to b64dec').replace(/[^A-Za-z0-9+\/]/g, ''), bytes = [], bits = 0, acc = 0;
    for (var i = 0; i < clean.length; i++) {
      acc = (acc << 6) | B64.indexOf(clean[i]); bits += 6;
      if (bits >= 8) { bits -= 8; bytes.push((acc >> bits) & 255); }
    }
    return fromUtf8(bytes);
  }
  var K = [0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
  function sha256(s) {
    var b = utf8(sized(String(s), 'the value given to sha256')), l = b.length * 8;
    b.push(0x80);
    while (b.length % 64 !== 56) b.push(0);
    for (var i = 7; i >= 0; i--) b.push(i >= 4 ? 0 : (l >>> (i * 8)) & 255);
    var h = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19], w = new Array(64);
    for (var o = 0; o < b.length; o += 64) {
      for (var t = 0; t < 16; t++) w[t] = (b[o + t * 4] << 24) | (b[o + t * 4 + 1] << 16) | (b[o + t * 4 + 2] << 8) | b[o + t * 4 + 3];
      for (t = 16; t < 64; t++) {
        var x = w[t - 15], y = w[t - 2];
        var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
      }
      var a = h[0], c = h[1], d = h[2], e = h[3], f = h[4], g = h[5], hh = h[6], k = h[7];
      for (t = 0; t < 64; t++) {
        var S1 = ((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7));
        var t1 = (k + S1 + ((f & g) ^ (~f & hh)) + K[t] + w[t]) | 0;
        var S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        var t2 = (S0 + ((a & c) ^ (a & d) ^ (c & d))) | 0;
        k = hh; hh = g; g = f; f = (e + t1) | 0; e = d; d = c; c = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + c) | 0; h[2] = (h[2] + d) | 0; h[3] = (h[3] + e) | 0;
      h[4] = (h[4] + f) | 0; h[5] = (h[5] + g) | 0; h[6] = (h[6] + hh) | 0; h[7] = (h[7] + k) | 0;
    }
    return h.map(function (v) { return ('00000000' + (v >>> 0).toString(16)).slice(-8); }).join('');
  }

  // params: own properties hold the values (plain, fast reads); a missing name falls through to the prototype,
  // a Proxy that throws for anything that is not an Object.prototype member (toJSON/then are allowed, unset).
  var OBJECT_PROTO = Object.prototype;
  var refuse = function () { return false; };
  var undeclared = new Proxy(ObjectCreate(null), {
    // Writes through the prototype of params are refused (strict mode turns false into a TypeError).
    set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse, preventExtensions: refuse,
    get: function (t, k, receiver) {
      if (typeof k === 'symbol' || k in OBJECT_PROTO) return Reflect.get(OBJECT_PROTO, k, receiver);
      if (k === 'toJSON' || k === 'then') return undefined;
      throw new BatonTemplateError('undefined', null, null, 'params.' + String(k) + ' is not a declared parameter of this framework');
    },
    has: function (t, k) { return k in OBJECT_PROTO; },
  });
  function paramsObject(values) {
    // values is a fresh object from JSON.parse: re-parent and freeze it in place (defineProperty per value
    // was the hottest line of the prelude in profiles). Nested lists and maps are frozen too, so one
    // template cannot change what the next one of the same instance reads.
    ObjectKeys(values).forEach(function (k) { freezeData(values[k]); });
    Object.setPrototypeOf(values, undeclared);
    return Object.freeze(values);
  }

  /** Deep-freezes JSON data (from JSON.parse: plain objects and arrays only). */
  function freezeData(v) {
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
    Object.freeze(v);
    if (isArray(v)) for (var i = 0; i < v.length; i++) freezeData(v[i]);
    else { var ks = ObjectKeys(v); for (var j = 0; j < ks.length; j++) freezeData(v[ks[j]]); }
    return v;
  }

  var GLOBAL_WRITE = /of object '\[object global\]'|Assignment to constant variable/;
  var READ_ONLY = /read[ -]only|not extensible|Cannot (assign|add property|delete|define property)|object is not extensible|frozen/;
  function makeRethrow(file) {
    return Object.freeze(function rethrow(err, line, column) {
      if (err instanceof BatonTemplateError) {
        if (err.file === null) { err.file = file; err.line = line; err.column = column || 0; }
        throw err;
      }
      var kind = err instanceof ReferenceError ? 'undefined' : 'runtime';
      var msg = err !== null && typeof err === 'object' && 'message' in err ? String(err.message) : String(err);
      if (err instanceof RangeError && /call stack/.test(msg)) msg = 'too much recursion (endless include?)';
      if (err instanceof TypeError && GLOBAL_WRITE.test(msg)) msg += ' (the sandbox\'s globals and built-ins are read-only: use a local variable)';
      else if (err instanceof TypeError && READ_ONLY.test(msg)) msg += ' (template inputs are read-only: copy before changing, e.g. params.LIST.slice().sort())';
      var located = new BatonTemplateError(kind, file, line, msg);
      located.column = column || 0;
      throw located;
    });
  }

  function renderTemplate(key, locals, partials, depth) {
    var def = defs.get(key);
    if (!def) throw new Error('internal: template ' + key + ' is not defined in the sandbox');
    var include = function (name, extra) {
      if (depth > 20) throw new Error('include nested more than 20 levels: ' + String(name));
      var n = String(name), k = hasOwn.call(partials, n) ? partials[n] : hasOwn.call(partials, n + '.ejs') ? partials[n + '.ejs'] : hasOwn.call(partials, n + '.yaml.ejs') ? partials[n + '.yaml.ejs'] : undefined;
      if (k === undefined) throw new Error('include: no template named ' + JSONstringify(n) + ' in this framework');
      var merged = ObjectCreate(locals);
      // defineProperty, not assignment: an extra may shadow a read-only inherited local (labels, params...).
      if (extra !== undefined && extra !== null) ObjectKeys(extra).forEach(function (x) { defineProperty(merged, x, { value: extra[x], writable: true, enumerable: true, configurable: true }); });
      return renderTemplate(k, merged, partials, depth + 1);
    };
    var out = def.fn(locals, printScalar, include, def.rethrow);
    return typeof out === 'string' ? out : String(out);
  }

  function runJob(job, index) {
    var base = job.base, results = [];
    var params = paramsObject(base.params);
    // Everything a template reads is frozen: nothing one render does is visible to the next.
    var shared = Object.freeze({ params: params, instance: freezeData(base.instance), framework: freezeData(base.framework), labels: freezeData(base.labels), selectorLabels: freezeData(base.selectorLabels), pipes: freezeData(base.pipes || {}) });
    for (var i = 0; i < job.renders.length; i++) {
      var r = job.renders[i];
      // Renders name their template by the number the host gave it in this process; the file comes with it.
      var d = defs.get(r.key), file = d ? d.file : '';
      current = { job: index, file: file };
      // Locals inherit the shared part: copying ~30 names per render showed up in profiles.
      var locals = ObjectCreate(shared);
      locals.plan = freezeData(r.plan);
      try {
        var text = renderTemplate(r.key, locals, job.partials, 0);
        if (text.length > MAX_OUTPUT) results.push({ ok: false, kind: 'output', file: file, line: 0, message: 'rendered output is larger than 4 MiB' });
        else results.push({ ok: true, file: file, text: text });
      } catch (err) {
        if (err instanceof BatonTemplateError) results.push({ ok: false, kind: err.kind, file: err.file || file, line: err.line || 0, column: err.column || 0, message: err.message });
        else results.push({ ok: false, kind: 'runtime', file: file, line: 0, message: String(err && err.message) });
      }
      // Globals a template created (globalThis.x = ...) go before the next render, of this or any instance.
      if (globalsChanged()) removeGlobals();
    }
    return results;
  }

  // --- Context escapers and Sprig helpers (escape-source.ts, helpers-source.ts) ---
  var escapers, sprig;
  (function () {
    var yaml = G.__batonYaml;
    delete G.__batonYaml;
    escapers = (${ESCAPE_SOURCE})({ String: String, isFinite: isFinite, isArray: isArray, JSONstringify: JSONstringify, BatonTemplateError: BatonTemplateError, UNDEFINED_PRINTED: UNDEFINED_PRINTED });
    sprig = (${HELPERS_SOURCE})({ Object: Object, String: String, Number: Number, Math: Math, Array: Array, Error: Error, JSONparse: JSONparse, JSONstringify: JSONstringify,
      isArray: isArray, isFinite: isFinite, defineProperty: Object.defineProperty, sha256: sha256, utf8: utf8, dq: escapers.dq, yaml: yaml });
  })();
  // --- end of context escapers and Sprig helpers ---

  var builtins = { Object: Object, Array: Array, String: String, Number: Number, Boolean: Boolean, JSON: JSON, Math: Math,
    parseInt: parseInt, parseFloat: parseFloat, isNaN: isNaN, isFinite: isFinite, Error: Error };
  var helpers = { toYaml: toYaml, toJson: toJson, indent: indent, nindent: nindent, quote: quote, b64enc: b64enc, b64dec: b64dec,
    sha256: sha256, trunc: trunc, dnsName: dnsName, required: required, fallback: fallback };
  ObjectKeys(helpers).forEach(function (n) { Object.defineProperty(G, n, { value: helpers[n], writable: false, configurable: false, enumerable: false }); });

  Object.defineProperty(G, '__batonRun', { writable: false, configurable: false, enumerable: false, value: function () {
    if (running) throw new Error('__batonRun is not reentrant');
    running = true;
    try {
      var jobs = JSONparse(input);
      input = '';
      // An array of arrays of plain records with primitive fields, all created here: the worker may read it.
      return jobs.map(runJob);
    } finally { running = false; current = { job: -1, file: current.file }; }
  } });

  // Templates may not define globals that cannot be deleted again (defineProperty defaults to
  // non-configurable): the define functions refuse the global object as a target.
  var defineProperty = Object.defineProperty, defineProperties = Object.defineProperties, reflectDefine = Reflect.defineProperty;
  function noGlobal(target, name) { if (target === G) throw new TypeError(name + ': templates may not define globals'); }
  Object.defineProperty = function (o, k, d) { noGlobal(o, 'Object.defineProperty'); return defineProperty(o, k, d); };
  Object.defineProperties = function (o, ds) { noGlobal(o, 'Object.defineProperties'); return defineProperties(o, ds); };
  Reflect.defineProperty = function (o, k, d) { noGlobal(o, 'Reflect.defineProperty'); return reflectDefine(o, k, d); };
  // A Proxy of the global object would pass the checks above (it is not G) and forward a non-configurable
  // definition to G: a global no cleanup can delete, readable by every later render. No proxy may wrap G.
  var RealProxy = Proxy;
  function GuardedProxy(target, handler) {
    if (new.target === undefined) throw new TypeError('Constructor Proxy requires \'new\'');
    if (target === G) throw new TypeError('Proxy: templates may not wrap the global object');
    return new RealProxy(target, handler);
  }
  GuardedProxy.revocable = function revocable(target, handler) {
    if (target === G) throw new TypeError('Proxy.revocable: templates may not wrap the global object');
    return RealProxy.revocable(target, handler);
  };
  defineProperty(G, 'Proxy', { value: GuardedProxy, writable: true, enumerable: false, configurable: true });

  // Lockdown: freeze every intrinsic reachable from the global object so templates cannot leave state
  // behind for the next render (determinism) or change the helpers.
  var seen = new Set();
  function freeze(o) {
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) return;
    seen.add(o);
    Object.freeze(o);
    freeze(Object.getPrototypeOf(o));
    Reflect.ownKeys(o).forEach(function (k) {
      var d = Object.getOwnPropertyDescriptor(o, k);
      if (d) { freeze(d.value); freeze(d.get); freeze(d.set); }
    });
  }
  Object.getOwnPropertyNames(G).forEach(function (n) { if (n !== 'globalThis') { var d = Object.getOwnPropertyDescriptor(G, n); if (d) freeze(d.value); } });
  for (var gp = Object.getPrototypeOf(G); gp !== null; gp = Object.getPrototypeOf(gp)) freeze(gp);
  [function* () {}, async function () {}, async function* () {}, [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ''[Symbol.iterator](), /x/[Symbol.matchAll]('')].forEach(freeze);

  var templateScope = ObjectCreate(null);
  ObjectKeys(helpers).forEach(function (n) { templateScope[n] = helpers[n]; });
  ObjectKeys(sprig).forEach(function (n) { if (!(n in templateScope)) templateScope[n] = sprig[n]; });
  ['__p', '__pf', '__pk', '__pfk', '__pa', '__d', '__b', '__c', '__g', '__raw', '__txt', '__gend'].forEach(function (n) { templateScope[n] = escapers[n]; });
  ObjectKeys(builtins).forEach(function (n) { templateScope[n] = builtins[n]; });
  Object.freeze(templateScope);
  // Every global the context starts with is read-only: a template that replaced JSON or escape would
  // hand its value to every later render (deleting what templates add is not enough for these).
  Reflect.ownKeys(G).forEach(function (k) {
    var d = Object.getOwnPropertyDescriptor(G, k);
    if (d && d.configurable && 'value' in d) defineProperty(G, k, { value: d.value, writable: false, enumerable: d.enumerable, configurable: false });
    else if (d && d.configurable) defineProperty(G, k, { get: d.get, set: d.set, enumerable: d.enumerable, configurable: false });
  });
  var baseline = new Set(Reflect.ownKeys(G));
  var ownKeys = Reflect.ownKeys;
  // The global's prototype chain is frozen with everything else; a template that swaps the prototype
  // (globalThis.__proto__ = ...) gets it put back after its render.
  var globalProto = Object.getPrototypeOf(G), getProto = Object.getPrototypeOf, setProto = Object.setPrototypeOf;
  // After every render: listing every own key of the global object (~70, through the vm's interceptors)
  // cost ~9 us, a fifth of the sandbox's time per instance; this check cost ~3 us, and ~0.5 us since the worker's
  // sandbox object is closed before the prelude runs (worker-source.ts: the interceptors list no names). No global can be deleted
  // (all are non-configurable above), so a template that added one changed the count of enumerable names or of
  // symbols, or swapped the prototype. A property that is not enumerable comes only from the define functions,
  // which refuse the global object (Error.captureStackTrace on it defines nothing: a channel probe checks).
  // Class fields and assignments create enumerable ones (the worker keeps them off its sandbox object).
  // The full walk still runs after every batch (cleanup) and whenever the check says so.
  var objectKeys = Object.keys, ownSymbols = Object.getOwnPropertySymbols;
  var enumerableCount = objectKeys(G).length, symbolCount = ownSymbols(G).length;
  function globalsChanged() {
    return objectKeys(G).length !== enumerableCount || ownSymbols(G).length !== symbolCount || getProto(G) !== globalProto;
  }
  function removeGlobals() {
    ownKeys(G).forEach(function (k) { if (!baseline.has(k)) { try { delete G[k]; } catch (e) { /* keep */ } } });
    if (getProto(G) !== globalProto) setProto(G, globalProto);
  }
  return {
    // Globals a template created are removed after every render (runJob), and again after every batch.
    cleanup: removeGlobals,
    // factory: the compiled template's outer function; it binds helpers and built-ins once, here.
    define: function (key, file, factory) { if (!defs.has(key)) defs.set(key, { fn: factory(templateScope), rethrow: makeRethrow(file), file: file }); },
    has: function (key) { return defs.has(key); },
    setInput: function (json) { running = false; input = String(json); },
    current: function () { return current.job + '\n' + current.file; },
    // What compiled templates bind (helpers, escapers, built-ins): for the bench's in-process floor.
    scope: function () { return templateScope; },
  };
})(globalThis)
`;
