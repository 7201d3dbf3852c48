/**
 * A fast path for the sandbox's YAML parsing: rendered manifests are nearly always plain block YAML (mappings,
 * sequences, one-line scalars and flow collections, literal block scalars), and js-yaml spent ~40% of the
 * sandbox's time on them, then JSON.stringify as much again to send the objects to the host. This reads that
 * subset line by line and writes the JSON text of each document directly.
 *
 * It is exact or it declines: anything outside the subset (anchors, aliases, tags, multi-line plain or
 * quoted scalars, folded or indented block scalars, tabs, directives, empty documents, duplicate keys,
 * `__proto__`, anything odd) returns undefined and js-yaml parses the text as before, errors and alias limits
 * included. Plain scalars (values and keys) are resolved by js-yaml's own CORE_SCHEMA types, so `yes`, `0x1F`,
 * `.inf` or `~` mean what they meant. test/render/fast-yaml.test.ts compares both on every rendered output of
 * the repository's frameworks and on a corpus of edge cases.
 *
 * Evaluated as source in the sandbox process (`(FAST_YAML_SOURCE)(jsyaml.CORE_SCHEMA)` gives the function),
 * so it must not contain backticks or dollar-brace sequences (it lives in a String.raw literal).
 */
export const FAST_YAML_SOURCE = String.raw`
(function (schema) {
  'use strict';
  var implicit = schema.compiledImplicit;
  var NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
  // Anything but printable ASCII and newlines. A text without any (nearly every rendered manifest) has no tab, CR, BOM,
  // control character or surrogate, so it passes the four checks below with one scan of this simple class; NON_PRINTABLE
  // (alternatives and a lookahead tried at every character) cost ~40% more per text (~17 -> ~12 us per ZooKeeper instance).
  var NOT_ASCII_PRINTABLE = /[^\n\x20-\x7E]/;
  // Characters a plain scalar may not start with (a '-' followed by a non-space is handled apart).
  var INDICATORS = '-?:,[]{}#&*!|>\'"%@' + String.fromCharCode(96);
  function Decline() {}
  var DECLINE = new Decline();
  function decline() { throw DECLINE; }

  // Words a plain scalar starting with a letter may resolve from (null and bool of the core schema); any other
  // such scalar is a string, and skips the resolvers (the float one is a regular expression per scalar).
  // Compared one by one: looking a fresh string up as a property name (an object of the words) cost more.
  function isWord(s) {
    return s === 'null' || s === 'true' || s === 'false' || s === 'Null' || s === 'True' || s === 'False' || s === 'NULL' || s === 'TRUE' || s === 'FALSE';
  }
  function resolvePlain(s) {
    var c = s.charCodeAt(0);
    if (((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) && (s.length > 5 || !isWord(s))) return s;
    for (var i = 0; i < implicit.length; i++) {
      var t = implicit[i];
      if (t.resolve(s)) return t.construct(s);
    }
    return s;
  }
  // Plain scalars come from the text, which has passed the checks at the top of fastYaml (no control characters,
  // no lone surrogates): as JSON, such a string only needs quotes, unless it holds a quote or a backslash.
  function plainJson(s) { return s.indexOf('"') < 0 && s.indexOf('\\') < 0 ? '"' + s + '"' : JSON.stringify(s); }
  // A decimal integer of 1-15 digits without a leading zero, maybe negative (ports, replicas, sizes): the core schema's
  // int type resolves it to the number those digits write, whose JSON text is the scalar itself ('0' too, not '-0':
  // that is 0). Taken without the resolvers (null, bool, then int's character checks and parse, then JSON.stringify).
  function isPlainDecimal(s) {
    var n = s.length, i = s.charCodeAt(0) === 45 ? 1 : 0;
    if (n - i < 1 || n - i > 15) return false;
    var c = s.charCodeAt(i);
    if (c < 49 || c > 57) return n === 1 && c === 48;
    for (i++; i < n; i++) { c = s.charCodeAt(i); if (c < 48 || c > 57) return false; }
    return true;
  }
  function scalarJson(s) {
    if (isPlainDecimal(s)) return s;
    var v = resolvePlain(s);
    if (v === s) return plainJson(s);
    var j = JSON.stringify(v);
    return j === undefined ? 'null' : j;
  }
  function keyString(s) {
    var k = String(resolvePlain(s));
    if (k === '__proto__' || k === '<<') decline();
    return k;
  }

  var lines, pos, end;
  // The last line skipBlank stopped at and its indent: a line is looked at again right after (noContinuation, then
  // the next entry). Reset for every text and whenever a line is rewritten.
  var seenPos = -1, seenIndent = 0;

  function indentOf(line) { var i = 0; while (line.charCodeAt(i) === 32) i++; return i; }
  /** Moves pos to the next line with content; returns its indent (-1 at the end). */
  function skipBlank() {
    if (pos === seenPos && pos < end) return seenIndent;
    for (; pos < end; pos++) {
      var line = lines[pos], i = 0;
      while (line.charCodeAt(i) === 32) i++;
      if (i < line.length && line.charCodeAt(i) !== 35) { seenPos = pos; seenIndent = i; return i; }
    }
    return -1;
  }
  /** A key's JSON text: a plain key is text of the document (or a number's or a word's string), a quoted one anything. */
  function jsonKey(k, quoted) { return quoted ? JSON.stringify(k) : plainJson(k); }
  function isSeqEntry(line, ind) { return line.charCodeAt(ind) === 45 && (line.length === ind + 1 || line.charCodeAt(ind + 1) === 32); }

  /** The rest of a line after a value: nothing, or spaces and a comment. */
  function restOk(s, i) {
    if (i >= s.length) return;
    if (s.charCodeAt(i) !== 32) decline();
    while (i < s.length && s.charCodeAt(i) === 32) i++;
    if (i < s.length && s.charCodeAt(i) !== 35) decline();
  }

  /** A double-quoted scalar starting at s[i]: its JSON text and where it ends. Only JSON's escapes are taken. */
  function doubleQuoted(s, i) {
    var j = i + 1;
    for (;;) {
      if (j >= s.length) decline();
      var c = s.charCodeAt(j);
      if (c === 92) j += 2;
      else if (c === 34) break;
      else j++;
    }
    var text = s.slice(i, j + 1);
    var value;
    try { value = JSON.parse(text); } catch (e) { decline(); }
    return { json: text, value: value, end: j + 1 };
  }
  function singleQuoted(s, i) {
    var j = i + 1, out = '';
    for (;;) {
      var q = s.indexOf("'", j);
      if (q < 0) decline();
      out += s.slice(j, q);
      if (s.charCodeAt(q + 1) === 39) { out += "'"; j = q + 2; continue; }
      return { json: JSON.stringify(out), value: out, end: q + 1 };
    }
  }

  /** Where a plain scalar of block context ends (before ' #'); declines a ': ' inside it. */
  function plainBlockEnd(s, i) {
    var hash = s.indexOf(' #', i);
    var e = hash < 0 ? s.length : hash;
    while (e > i && s.charCodeAt(e - 1) === 32) e--;
    var colon = s.indexOf(':', i);
    while (colon >= 0 && colon < e) {
      if (colon + 1 === e || s.charCodeAt(colon + 1) === 32) decline();
      colon = s.indexOf(':', colon + 1);
    }
    return e;
  }
  function plainStartOk(s, i) {
    var c = s.charAt(i);
    if (c === '') return false;
    if (c === '-') { var n = s.charAt(i + 1); return n !== '' && n !== ' '; }
    return INDICATORS.indexOf(c) < 0;
  }

  /** Records key; true when it was there already. A list for the usual few keys, a Set beyond (stays linear). */
  function seenBefore(seen, key) {
    if (seen.set !== undefined) { if (seen.set.has(key)) return true; seen.set.add(key); return false; }
    if (seen.indexOf(key) >= 0) return true;
    seen.push(key);
    if (seen.length > 16) seen.set = new Set(seen);
    return false;
  }

  // --- Flow collections on one line ---
  function flowPlainEnd(s, i) {
    var j = i;
    for (; j < s.length; j++) {
      var c = s.charCodeAt(j);
      if (c === 44 || c === 91 || c === 93 || c === 123 || c === 125) break;
      if (c === 58) { var n = s.charCodeAt(j + 1); if (j + 1 >= s.length || n === 32 || n === 44 || n === 91 || n === 93 || n === 123 || n === 125) break; }
      if (c === 35 && s.charCodeAt(j - 1) === 32) decline();
    }
    var e = j;
    while (e > i && s.charCodeAt(e - 1) === 32) e--;
    if (e === i) decline();
    return { text: s.slice(i, e), end: j };
  }
  function spaces(s, i) { while (s.charCodeAt(i) === 32) i++; return i; }
  function flowValue(s, i) {
    var c = s.charAt(i);
    if (c === '[') return flowSeq(s, i);
    if (c === '{') return flowMap(s, i);
    if (c === '"') { var d = doubleQuoted(s, i); return { json: d.json, end: d.end }; }
    if (c === "'") { var q = singleQuoted(s, i); return { json: q.json, end: q.end }; }
    if (!plainStartOk(s, i)) decline();
    var p = flowPlainEnd(s, i);
    return { json: scalarJson(p.text), end: p.end };
  }
  function flowSeq(s, i) {
    var out = '[', first = true;
    i = spaces(s, i + 1);
    for (;;) {
      if (s.charAt(i) === ']') return { json: out + ']', end: i + 1 };
      var v = flowValue(s, i);
      i = spaces(s, v.end);
      if (s.charAt(i) === ':') decline(); // a one-pair mapping inside a sequence
      out += (first ? '' : ',') + v.json;
      first = false;
      if (s.charAt(i) === ',') { i = spaces(s, i + 1); continue; }
      if (s.charAt(i) !== ']') decline();
    }
  }
  function flowMap(s, i) {
    var out = '{', first = true, seen = [];
    i = spaces(s, i + 1);
    for (;;) {
      if (s.charAt(i) === '}') return { json: out + '}', end: i + 1 };
      var key, c = s.charAt(i), quoted = c === '"' || c === "'";
      if (c === '"') { var d = doubleQuoted(s, i); key = d.value; i = d.end; }
      else if (c === "'") { var q = singleQuoted(s, i); key = q.value; i = q.end; }
      else {
        if (!plainStartOk(s, i)) decline();
        var p = flowPlainEnd(s, i);
        key = keyString(p.text);
        i = p.end;
      }
      if (key === '__proto__' || seenBefore(seen, key)) decline();
      i = spaces(s, i);
      if (s.charAt(i) !== ':') decline();
      i = spaces(s, i + 1);
      var ch = s.charAt(i);
      if (ch === ',' || ch === '}' || ch === '') decline();
      var v = flowValue(s, i);
      out += (first ? '' : ',') + jsonKey(key, quoted) + ':' + v.json;
      first = false;
      i = spaces(s, v.end);
      if (s.charAt(i) === ',') { i = spaces(s, i + 1); continue; }
      if (s.charAt(i) !== '}') decline();
    }
  }

  // --- Block structure ---
  /** A literal block scalar ('|' or '|-') whose header ended the line at pos - 1; parent is the owner's indent. */
  function literal(parent, strip) {
    var body = [], blockIndent = -1, trailing = 0;
    while (pos < end) {
      var line = lines[pos], ind = indentOf(line);
      if (ind === line.length) {
        // An empty line: spaces beyond the indentation would be content (declined, as leading ones are an error).
        if (blockIndent < 0 ? ind > 0 : ind > blockIndent) decline();
        trailing++;
        pos++;
        continue;
      }
      if (blockIndent < 0) {
        if (ind <= parent) decline();
        blockIndent = ind;
      } else if (ind < blockIndent) break;
      for (; trailing > 0; trailing--) body.push('');
      body.push(line.slice(blockIndent));
      pos++;
    }
    if (body.length === 0) decline();
    var text = body.join('\n');
    return JSON.stringify(strip ? text : text + '\n');
  }

  /** A value after 'key:' or '- ' on the line at pos (already advanced past it); s is that value's text. */
  function inlineValue(s, parent) {
    var c = s.charAt(0), r;
    if (c === '"') { r = doubleQuoted(s, 0); restOk(s, r.end); return r.json; }
    if (c === "'") { r = singleQuoted(s, 0); restOk(s, r.end); return r.json; }
    if (c === '[' || c === '{') { r = flowValue(s, 0); restOk(s, r.end); return r.json; }
    if (c === '|') {
      var strip = s.charAt(1) === '-';
      restOk(s, strip ? 2 : 1);
      return literal(parent, strip);
    }
    if (!plainStartOk(s, 0)) decline();
    return scalarJson(s.slice(0, plainBlockEnd(s, 0)));
  }

  /** After a one-line value: the next content line may not be indented deeper than its owner (a continuation). */
  function noContinuation(ind) {
    if (skipBlank() > ind) decline();
  }

  /** The value of 'key:' with nothing after it: a nested block, a sequence at the same indent, or null. */
  function nestedValue(ind, inMapping) {
    var i = skipBlank();
    if (i < 0) return 'null';
    var line = lines[pos];
    if (i > ind) return block(i);
    if (inMapping && i === ind && isSeqEntry(line, i)) return sequence(i);
    return 'null';
  }

  /** Is the text at s[i] a mapping entry ('key:' then a space or the end)? */
  function mappingEntryAt(s, i) {
    var c = s.charAt(i);
    if (c === '"' || c === "'") {
      var r = c === '"' ? doubleQuoted(s, i) : singleQuoted(s, i);
      var k = spaces(s, r.end);
      return s.charAt(k) === ':' && (k + 1 === s.length || s.charCodeAt(k + 1) === 32);
    }
    if (c === '[' || c === '{' || c === '|' || c === '>') return false;
    var hash = s.indexOf(' #', i), e = hash < 0 ? s.length : hash;
    var colon = s.indexOf(':', i);
    while (colon >= 0 && colon < e) {
      if (colon + 1 === s.length || s.charCodeAt(colon + 1) === 32) return true;
      colon = s.indexOf(':', colon + 1);
    }
    return false;
  }

  function block(ind) {
    var line = lines[pos];
    if (isSeqEntry(line, ind)) return sequence(ind);
    if (mappingEntryAt(line, ind)) return mapping(ind);
    decline(); // a bare scalar as a block node: rare in manifests
  }

  function sequence(ind) {
    var out = '[', first = true;
    for (;;) {
      var i = skipBlank();
      if (i < 0 || i < ind) break;
      var line = lines[pos];
      if (i > ind || !isSeqEntry(line, i)) decline();
      var value;
      if (line.length === ind + 1) { pos++; value = nestedValue(ind, false); }
      else {
        var col = spaces(line, ind + 1);
        if (col === line.length || line.charCodeAt(col) === 35) { pos++; value = nestedValue(ind, false); }
        else if (isSeqEntry(line, col)) decline(); // '- - a'
        else if (mappingEntryAt(line, col)) {
          // '- key: value': a mapping whose first entry starts at col.
          lines[pos] = ' '.repeat(col) + line.slice(col);
          seenPos = -1;
          value = mapping(col);
        } else {
          pos++;
          value = inlineValue(line.slice(col), ind);
          if (line.charAt(col) !== '|') noContinuation(ind);
        }
      }
      out += (first ? '' : ',') + value;
      first = false;
    }
    return out + ']';
  }

  function mapping(ind) {
    var out = '{', first = true, seen = [];
    for (;;) {
      var i = skipBlank();
      if (i < 0 || i < ind) break;
      var line = lines[pos];
      if (i > ind) decline();
      var key, k, c = line.charAt(ind), quoted = c === '"' || c === "'";
      if (quoted) {
        var r = c === '"' ? doubleQuoted(line, ind) : singleQuoted(line, ind);
        key = r.value;
        k = spaces(line, r.end);
        if (line.charAt(k) !== ':') decline();
      } else {
        if (!plainStartOk(line, ind)) decline();
        k = line.indexOf(':', ind);
        while (k >= 0 && k + 1 < line.length && line.charCodeAt(k + 1) !== 32) k = line.indexOf(':', k + 1);
        if (k < 0) decline();
        var e = k;
        while (e > ind && line.charCodeAt(e - 1) === 32) e--;
        var raw = line.slice(ind, e);
        if (raw.indexOf(' #') >= 0) decline();
        key = keyString(raw);
      }
      if (key === '__proto__' || seenBefore(seen, key)) decline();
      var col = spaces(line, k + 1), value;
      pos++;
      if (col === line.length || line.charCodeAt(col) === 35) value = nestedValue(ind, true);
      else {
        value = inlineValue(line.slice(col), ind);
        if (line.charAt(col) !== '|') noContinuation(ind);
      }
      out += (first ? '' : ',') + jsonKey(key, quoted) + ':' + value;
      first = false;
    }
    return out + '}';
  }

  /** The JSON text of every document of text, or undefined when js-yaml must parse it. */
  return function fastYaml(text) {
    if (NOT_ASCII_PRINTABLE.test(text) && (text.indexOf('\t') >= 0 || text.indexOf('\r') >= 0 || text.charCodeAt(0) === 0xfeff || NON_PRINTABLE.test(text))) return undefined;
    lines = text.split('\n');
    seenPos = -1;
    var docs = [], start = 0, n = lines.length;
    try {
      for (var d = 0; start <= n; d++) {
        var stop = start;
        while (stop < n) {
          var l = lines[stop];
          if (l.charCodeAt(0) === 45 && l.slice(0, 3) === '---') { if (/^--- *$/.test(l)) break; decline(); }
          if (l.charCodeAt(0) === 46 && l.slice(0, 3) === '...') decline();
          if (l.charCodeAt(0) === 37) decline();
          stop++;
        }
        pos = start;
        end = stop;
        var first = skipBlank();
        if (first < 0) {
          // Nothing before the first '---' is no document; an empty document anywhere else is left to js-yaml.
          if (!(d === 0 && stop < n)) decline();
        } else {
          var json = block(first);
          if (skipBlank() >= 0) decline();
          docs.push(json);
        }
        start = stop + 1;
      }
    } catch (e) {
      // Declined, too deep (RangeError), or a fault here: js-yaml decides, never this function.
      return undefined;
    } finally {
      lines = undefined;
    }
    return docs;
  };
})
`;
