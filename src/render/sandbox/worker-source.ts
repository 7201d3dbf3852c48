import { FAST_YAML_SOURCE } from './fast-yaml-source.js';

/**
 * The sandbox process, as a source string so `node -e src` works from vitest/tsx and from compiled dist
 * alike. Its setup data (the prelude, js-yaml's path) arrives on stdin; batches over the IPC channel, replies as frames on stdout. It owns ONE vm context without Node globals (no process, require, Buffer),
 * evaluates PRELUDE there, defines compiled templates, renders batches with a vm timeout (microtasks
 * included), parses the output with js-yaml CORE_SCHEMA inside the worker's memory limit, and counts
 * nodes to refuse alias bombs. Messages: {id, defines, input, timeoutMs} -> {id} and one results array per job | {id, failure}.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const vm = require('node:vm');
const FAST_YAML = ${FAST_YAML_SOURCE};
const workerData = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
// Replies go to stdout as frames (4-byte length, then the JSON text in UTF-8), not over the IPC channel: its
// serializer copied every reply twice and the host's reader concatenated the chunks of a large one again and again.
// A socket on the same pipe, not process.stdout: stdout writes to a pipe are synchronous on Linux, which held the
// sandbox until the host had read a whole reply instead of letting it render the next batch.
const out = new (require('node:net').Socket)({ fd: 1, readable: false, writable: true });
// A reply is sections of JSON text: the header ({id} or {id, failure}), then one per job. The frame's body is
// [u32 count][u32 byte length of each section][the sections], so the host decodes and parses job by job
// (small strings, short-lived objects) rather than one string of the whole batch. Each render's text is
// encoded on its own: flattening and encoding a string of some hundred thousand parts cost three times as much.
const parentPort = { on: (event, listener) => process.on(event, listener), postMessage: (sections) => {
  const bodies = [Buffer.allocUnsafe(4 + 4 * (sections.length + 1))];
  let length = bodies[0].length - 4;
  bodies[0].writeUInt32LE(sections.length, 4);
  for (let s = 0; s < sections.length; s++) {
    let size = 0;
    for (const piece of sections[s]) { const b = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece; bodies.push(b); size += b.length; }
    bodies[0].writeUInt32LE(size, 8 + 4 * s);
    length += size;
  }
  bodies[0].writeUInt32LE(length, 0);
  out.write(Buffer.concat(bodies, length + 4));
} };
const OPEN = Buffer.from('['), COMMA = Buffer.from(','), CLOSE = Buffer.from(']');
// The host going away (closed IPC channel) ends the sandbox.
process.on('disconnect', () => process.exit(0));
const jsyaml = require(workerData.jsYamlPath);
const fastYaml = FAST_YAML(jsyaml.CORE_SCHEMA);
const sandbox = Object.create(null);
const ctx = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
// Node's vm keeps globals a template creates on this object, and its define interceptor made some of them
// non-configurable (a class field on a constructor that returns globalThis): a global no cleanup could delete,
// readable by every later render. With no room here, they land on the context's own global object with
// ordinary attributes, where the prelude's cleanup deletes them.
// Closed BEFORE the prelude runs, so the prelude's globals (helpers, the read-only built-ins) live on the
// context's own global object too and this object stays empty: listing the global's names goes through the vm's
// interceptors, which list this object and ask each of its names for its attributes. With the ~50 names the
// prelude used to leave here, the check for new globals after every render cost ~6x more (prelude.ts).
Object.preventExtensions(sandbox);
// js-yaml's own source, evaluated inside the context for fromYaml(); the prelude takes it off the global.
if (workerData.yamlSource) {
  new vm.Script('globalThis.__batonYaml = (function () { var exports = {}, module = { exports: exports };\n' + workerData.yamlSource + '\n;return module.exports; })();', { filename: 'js-yaml.min.js' }).runInContext(ctx);
}
const api = new vm.Script(workerData.prelude, { filename: 'baton-prelude.js' }).runInContext(ctx);
const baseline = new Set(Reflect.ownKeys(sandbox));
const runScript = new vm.Script('__batonRun()', { filename: 'baton-run.js' });
const MAX_NODES = 200000;

function cleanup() {
  try { api.cleanup(); } catch (e) { /* a template made a global non-configurable: it stays */ }
  for (const k of Reflect.ownKeys(sandbox)) if (!baseline.has(k)) { try { delete sandbox[k]; } catch (e) { /* keep */ } }
}

function countNodes(v, budget) {
  // Walks the value as a tree (aliases counted every time they are reached), stopping at the budget.
  const stack = [v];
  let n = 0;
  while (stack.length > 0) {
    const x = stack.pop();
    if (++n > budget) return n;
    if (x !== null && typeof x === 'object') {
      if (Array.isArray(x)) for (let i = 0; i < x.length; i++) stack.push(x[i]);
      else for (const k of Object.keys(x)) stack.push(x[k]);
    }
  }
  return n;
}

/** One render's result as JSON text: the fast path writes the documents' JSON itself (fast-yaml-source.ts). */
function parseOutput(r) {
  const fast = fastYaml(r.text);
  if (fast !== undefined) {
    let json = '{"ok":true,"docs":[';
    for (let i = 0; i < fast.length; i++) json += (i > 0 ? ',{"index":' : '{"index":') + i + ',"value":' + fast[i] + '}';
    return json + ']}';
  }
  return JSON.stringify(parseWithJsYaml(r));
}

function parseWithJsYaml(r) {
  try {
    const docs = [];
    jsyaml.loadAll(r.text, (d) => { docs.push(d); }, { schema: jsyaml.CORE_SCHEMA, json: false });
    let budget = MAX_NODES;
    const kept = [];
    // Only aliases (*name) can make the value bigger than its text: without a '*' there is none to count.
    const aliases = r.text.indexOf('*') >= 0;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i];
      if (d === null || d === undefined) continue;
      if (aliases) budget -= countNodes(d, budget);
      if (budget < 0) return { ok: false, kind: 'alias', file: r.file, line: 0, message: 'rendered YAML expands to more than ' + MAX_NODES + ' nodes (alias bomb?)' };
      kept.push({ index: i, value: d });
    }
    return { ok: true, docs: kept };
  } catch (err) {
    const line = err && err.mark && typeof err.mark.line === 'number' ? err.mark.line + 1 : 0;
    const reason = err && err.reason ? String(err.reason) : String(err && err.message);
    const text = line > 0 ? (r.text.split('\n')[line - 1] || '') : '';
    return { ok: false, kind: 'yaml', file: r.file, line: 0, outputLine: line, outputText: text, message: reason };
  }
}

parentPort.on('message', (msg) => {
  let reply;
  try {
    for (const d of msg.defines) {
      if (api.has(d.key)) continue;
      const fn = new vm.Script(d.src, { filename: d.file }).runInContext(ctx, { timeout: msg.timeoutMs });
      api.define(d.key, d.file, fn);
    }
    api.setInput(msg.input);
    const out = runScript.runInContext(ctx, { timeout: msg.timeoutMs });
    cleanup();
    // Copy the context's records field by field, keeping only primitives (never calling into them).
    const str = (v) => (typeof v === 'string' ? v : '');
    // The reply is written as JSON text render by render: a render's documents arrive as JSON text already. Each
    // render's text is encoded as soon as it is written: held as strings (built by concatenation) until the whole
    // batch was done, a batch's replies were most of what the sandbox's scavenger copied; as buffers they are off the heap.
    reply = [['{"id":' + Number(msg.id) + '}']];
    for (let j = 0; j < out.length; j++) {
      const job = out[j];
      const pieces = [OPEN];
      for (let i = 0; i < job.length; i++) {
        const r = job[i];
        const json = r.ok === true
          ? parseOutput({ text: str(r.text), file: str(r.file) })
          : JSON.stringify({ ok: false, kind: str(r.kind) || 'runtime', file: str(r.file), line: typeof r.line === 'number' ? r.line : 0, column: typeof r.column === 'number' ? r.column : 0, message: str(r.message) });
        if (i > 0) pieces.push(COMMA);
        pieces.push(Buffer.from(json, 'utf8'));
      }
      pieces.push(CLOSE);
      reply.push(pieces);
    }
  } catch (err) {
    cleanup();
    const timeout = err && err.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
    let where = '';
    try { where = String(api.current()); } catch (e) { where = ''; }
    reply = { id: msg.id, failure: { kind: timeout ? 'timeout' : 'internal', message: String(err && err.message), where } };
  }
  parentPort.postMessage(Array.isArray(reply) ? reply : [[JSON.stringify(reply)]]);
});
// Set up: the host starts the stall watchdog of a batch from here, not from the spawn.
process.send('ready');
`;
