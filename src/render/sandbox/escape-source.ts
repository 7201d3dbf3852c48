/**
 * The context escapers of `<%= %>`, as source text evaluated inside the sandbox's vm context (never in
 * the host realm). The compiler (src/render/compiler/) decides each tag's YAML context and calls one of
 * these; see docs/templates.md "Output escaping" for the rules they implement:
 *
 * - `__p` whole plain scalar (block), `__pf` (flow), `__pk` key (block), `__pfk` key (flow), `__pa` a flow
 *   key directly followed by `:` (always quoted): typed; strings plain when they read back as the same
 *   string in YAML 1.1 and 1.2, else double-quoted;
 * - `__g(kind, parts)` a scalar made of text and values (part of a plain scalar, a single-quoted
 *   scalar): joined, then kept as written when that reads back as the joined string, else emitted whole
 *   as a double-quoted scalar;
 * - `__d` inside a double-quoted scalar, `__b(v, indent, first)` block scalar content (each further line
 *   indented to the block), `__c` a comment (line breaks escaped).
 *
 * Evaluates to `function (deps) -> { escapers }`; `deps` carries the prelude's captured built-ins and
 * its error type. Must not contain backticks or dollar-brace sequences (it is spliced into PRELUDE).
 */
export const ESCAPE_SOURCE = String.raw`
(function (deps) {
  'use strict';
  var String = deps.String, isFinite = deps.isFinite, isArray = deps.isArray, JSONstringify = deps.JSONstringify, BatonTemplateError = deps.BatonTemplateError;
  var UNDEFINED_PRINTED = deps.UNDEFINED_PRINTED;

  // Characters JSON.stringify leaves raw that a YAML stream may not hold raw (or that YAML 1.1 reads as line breaks).
  var RAW_UNSAFE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
  var RAW_UNSAFE_ALL = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;
  function hex4(c) { return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); }
  /** A YAML double-quoted scalar (JSON's escapes are YAML escapes). */
  function dq(s) { var j = JSONstringify(s); return RAW_UNSAFE.test(j) ? j.replace(RAW_UNSAFE_ALL, hex4) : j; }

  // Plain scalars that read back as the same string in YAML 1.1 and 1.2: a safe first character (no
  // indicator, digit, sign, dot, '<' or '='), printable characters only, no ': ' or ' #', no trailing
  // space or ':'; in flow context also no ',[]{}:'. Reserved words (null, booleans of 1.1) are quoted.
  var FIRST = 'A-Za-z_/\\\\(\\$^\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd';
  var BODY = '\\x20-\\x22\\x24-\\x39\\x3b-\\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd';
  var PLAIN_BLOCK = new RegExp('^[' + FIRST + '](?:[' + BODY + ']|(?<![ ])#|:(?=[^ ]))*(?<![ ])$');
  var BODY_FLOW = '\\x20\\x21\\x22\\x24-\\x2b\\x2d-\\x39\\x3b-\\x5a\\x5c\\x5e-\\x7a\\x7c\\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd';
  var PLAIN_FLOW = new RegExp('^[' + FIRST + '](?:[' + BODY_FLOW + ']|(?<![ ])#)*(?<![ ])$');
  var RESERVED = /^(?:null|true|false|yes|no|on|off|y|n)$/i;
  function plainBlock(s) { return PLAIN_BLOCK.test(s) && !(s.length <= 5 && RESERVED.test(s)); }
  function plainFlow(s) { return PLAIN_FLOW.test(s) && !(s.length <= 5 && RESERVED.test(s)); }

  // What no YAML scalar style but double quotes can hold (js-yaml's non-printable set and lone surrogates).
  var NON_PRINTABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/;

  function fail(message) { return new BatonTemplateError('value', null, null, message); }
  function number(v) { return isFinite(v) ? String(v) : (v !== v ? '.nan' : (v > 0 ? '.inf' : '-.inf')); }
  function flowJson(v) {
    var s = JSONstringify(v);
    if (s === undefined) return 'null';
    return RAW_UNSAFE.test(s) ? s.replace(RAW_UNSAFE_ALL, hex4) : s;
  }

  /** A value as text for a context that joins it with other text (part of a scalar, quotes, block, comment). */
  function text(v, where) {
    switch (typeof v) {
      case 'string': return v;
      case 'number':
        if (!isFinite(v)) throw fail('the number ' + String(v) + ' cannot be printed ' + where);
        return String(v);
      case 'boolean': return v ? 'true' : 'false';
      case 'bigint': return String(v);
      case 'undefined': throw new BatonTemplateError('undefined', null, null, UNDEFINED_PRINTED);
    }
    if (v === null) throw fail('null cannot be printed ' + where + ' (it would become the text "null"); print a string, e.g. fallback(v, "")');
    if (typeof v === 'object') throw fail('a ' + (isArray(v) ? 'list' : 'mapping') + ' cannot be printed ' + where + '; print toJson(v) or toYaml(v), or make the tag the whole value');
    throw fail('a ' + typeof v + ' cannot be printed into YAML');
  }

  function whole(v, plainOk, key) {
    switch (typeof v) {
      case 'string': {
        var out = plainOk(v) ? v : dq(v);
        if (key && out.length > 1024) throw fail('a mapping key of ' + v.length + ' characters: YAML implicit keys are at most 1024 characters');
        return out;
      }
      case 'number': return number(v);
      case 'boolean': return v ? 'true' : 'false';
      case 'bigint': return String(v);
      case 'undefined': throw new BatonTemplateError('undefined', null, null, UNDEFINED_PRINTED);
    }
    if (v === null) {
      if (key) throw fail('null cannot be a mapping key');
      return 'null';
    }
    if (typeof v === 'object') {
      if (key) throw fail('a ' + (isArray(v) ? 'list' : 'mapping') + ' cannot be a mapping key');
      return flowJson(v);
    }
    throw fail('a ' + typeof v + ' cannot be printed into YAML');
  }

  var PART = 'into part of a scalar';
  function group(kind, parts) {
    if (kind === 4) return singleQuoted(parts);
    var s = '';
    for (var i = 0; i < parts.length; i++) s += (i & 1) === 1 ? text(parts[i], PART) : parts[i];
    var ok = kind === 1 || kind === 3 ? plainFlow(s) : plainBlock(s);
    var out = ok ? s : dq(s);
    if (kind >= 2 && out.length > 1024) throw fail('a mapping key of ' + s.length + ' characters: YAML implicit keys are at most 1024 characters');
    return out;
  }

  // Inside single quotes only ' needs escaping ('') and only printable characters on one line fit.
  var SINGLE_UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
  function singleQuoted(parts) {
    var last = parts.length - 1;
    var written = '', decoded = '', fits = true;
    for (var i = 0; i <= last; i++) {
      var p = parts[i];
      if ((i & 1) === 1) {
        var t = text(p, 'into a single-quoted string');
        if (SINGLE_UNSAFE.test(t)) fits = false;
        written += t.split("'").join("''");
        decoded += t;
      } else {
        written += p;
        var inner = p;
        if (i === 0) inner = inner.slice(1);
        if (i === last) inner = inner.slice(0, -1);
        decoded += inner.split("''").join("'");
      }
    }
    // A value with a line break or a control character: the whole string becomes double-quoted.
    return fits ? written : dq(decoded);
  }

  function double(v) { var j = dq(text(v, 'into a double-quoted string')); return j.slice(1, -1); }

  var LINE_BREAKS = /\r\n|\r|\n/g;
  var DOC_MARKER = /\n(?:---|\.\.\.)(?:[ \t\n]|$)/;
  function block(v, indent, first) {
    var s = text(v, 'into a block scalar');
    if (NON_PRINTABLE.test(s)) throw fail('the value holds a control character that a block scalar cannot hold; print it where it is the whole value (key: <%= v %>) or encode it (b64enc)');
    if (first && /^[\r\n]*[ ]/.test(s)) throw fail('the value starts with a space at the start of a block scalar, where YAML would read it as indentation; give the header an indentation indicator (|2) or start the line with text');
    if (s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
    var out = s.replace(LINE_BREAKS, '\n' + ' '.repeat(indent));
    if (indent === 0 && DOC_MARKER.test(out)) throw fail('the value has a line --- or ... that would end the YAML document (the block scalar is not indented)');
    return out;
  }

  var COMMENT_UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;
  function comment(v) {
    var s = v === null ? 'null' : typeof v === 'object' ? flowJson(v) : text(v, 'into a comment');
    s = s.toWellFormed();
    return s.replace(COMMENT_UNSAFE, function (c) { return c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\t' : hex4(c); });
  }

  function raw(v) { return v === undefined || v === null ? '' : String(v); }

  // A scalar with scriptlets in it was printed as text from 'start' on: keep it when it reads back as
  // that text, else replace it with its double-quoted form.
  function groupEnd(kind, out, start) {
    var s = out.slice(start);
    var ok = kind === 1 || kind === 3 ? plainFlow(s) : plainBlock(s);
    var result = ok ? s : dq(s);
    if (kind >= 2 && result.length > 1024) throw fail('a mapping key of ' + s.length + ' characters: YAML implicit keys are at most 1024 characters');
    return ok ? out : out.slice(0, start) + result;
  }

  return {
    __p: function (v) { return whole(v, plainBlock, false); },
    __pf: function (v) { return whole(v, plainFlow, false); },
    __pk: function (v) { return whole(v, plainBlock, true); },
    __pfk: function (v) { return whole(v, plainFlow, true); },
    __pa: function (v) { return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? dq(text(v, 'as a key')) : whole(v, plainFlow, true); },
    __d: double,
    __b: block,
    __c: comment,
    __g: group,
    __raw: raw,
    __txt: function (v) { return text(v, PART); },
    __gend: groupEnd,
    dq: dq,
    plainBlock: plainBlock,
  };
})
`;
