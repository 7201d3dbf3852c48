/**
 * Reliability: template sandbox escape attempts (issue #11 items 7-8). Each attempt tries to reach the
 * host (process, require, files, the network, code generation) and prints `ESCAPED` only if it got
 * there; a try is clean when the render fails or prints no ESCAPED. The channel probes
 * (test/render/sandbox-probes.ts) try every shared built-in between two instances' renders; the limit
 * tries exhaust time and memory and check that the host renders on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import { Renderer, type RenderOutput } from '../../src/render/sandbox/renderer.js';
import { CHANNEL_PROBES, leaks, runProbe } from '../render/sandbox-probes.js';
import { FigureCounter } from './local-figures.js';

const counter = new FigureCounter('sandbox-escapes');
const renderer = new Renderer({ timeoutMs: 1000, memoryMb: 64 });
afterAll(async () => {
  await renderer.close();
  counter.print();
});

let seq = 0;
async function render(text: string): Promise<RenderOutput> {
  const c = compileTemplate({ name: 'x.yaml.ejs', file: 't/x.yaml.ejs', text, id: `escape-${seq++}` });
  if (!c.ok) return { ok: false, kind: 'runtime', file: 't/x.yaml.ejs', line: 0, message: c.problem.message };
  const [out] = await renderer.run({
    base: { instance: { name: 'a', namespace: 'b' }, framework: { name: 'w', version: '1.0.0', appVersion: '1' }, params: { P: 'x' }, labels: {}, selectorLabels: {} },
    renders: [{ key: c.compiled.key, file: 't/x.yaml.ejs', plan: { name: 'deploy', phase: 'p', step: 's', args: {} } }],
    partials: {},
    defines: [c.compiled],
  });
  return out!;
}

/** An expression that yields the host's `process` if the escape works; the template checks it is real. */
const PROCESS_ROUTES: [string, string][] = [
  ['the global process', 'process'],
  ['globalThis.process', 'globalThis.process'],
  ['the Function constructor of a local', 'instance.constructor.constructor("return process")()'],
  ['the Function constructor of a helper', 'toYaml.constructor("return process")()'],
  ['the Function constructor of params', 'params.constructor.constructor("return process")()'],
  ['an async function constructor', '(async function () {}).constructor("return process")'],
  ['a generator function constructor', '(function* () {}).constructor("return process")().next().value'],
  ['eval', 'eval("process")'],
  ['indirect eval', '(0, eval)("process")'],
  ['the global\'s constructor', 'globalThis.constructor.constructor("return process")()'],
  ['an error\'s constructor', 'new Error().constructor.constructor("return process")()'],
  ['Reflect.construct of Function', 'Reflect.construct(Function, ["return process"])()'],
  ['a Proxy trap\'s this', 'new Proxy({}, { get() { return this.constructor.constructor("return process")() } }).x'],
  ['arguments.callee.caller', '(function () { return arguments.callee.caller })()'],
  ['a stack trace prepared by V8', '(function () { const e = {}; Error.captureStackTrace(e); return e.stack })().process'],
  ['Symbol.for registry', 'Symbol.for("nodejs.util.inspect.custom").constructor.constructor("return process")()'],
  ['a promise job\'s constructor', 'Promise.resolve().constructor.constructor("return process")()'],
  ['the escape function\'s constructor', 'escapeFn.constructor("return process")()'],
  ['the include function\'s constructor', 'include.constructor("return process")()'],
  ['the rethrow function\'s constructor', 'rethrow.constructor("return process")()'],
  ['__proto__ walk to a host object', 'Object.getPrototypeOf(Object.getPrototypeOf(globalThis)).constructor.constructor("return process")()'],
  ['a WebAssembly module', 'WebAssembly.Module'],
  ['module.require', 'module.require("child_process")'],
  ['require', 'require("fs")'],
  ['the Node vm module through a host object', 'this.constructor.constructor("return require")()("vm")'],
  ['globalThis.global', 'global.process'],
  ['Buffer', 'Buffer.from("x").constructor.constructor("return process")()'],
  ['fetch', 'fetch("http://127.0.0.1:1/")'],
  ['a timer', 'setTimeout(() => 0, 0)'],
  ['queueMicrotask', 'queueMicrotask(() => 0)'],
  ['structuredClone', 'structuredClone({})'],
  ['the Atomics object', 'Atomics.wait'],
  ['a SharedArrayBuffer', 'new SharedArrayBuffer(8)'],
  ['WeakRef', 'new WeakRef({})'],
  ['Date (nondeterminism)', 'Date.now()'],
  ['Math.random (nondeterminism)', 'Math.random()'],
  ['Intl (nondeterminism)', 'Intl.DateTimeFormat().resolvedOptions().timeZone'],
  ['console', 'console.log("x")'],
  ['an ArrayBuffer outside the heap', 'new ArrayBuffer(8)'],
];

describe('escape attempts', () => {
  it.each(PROCESS_ROUTES)('through %s: no host object is reached', async (_name, expr) => {
    await counter.run(async () => {
      // Prints ESCAPED only when the expression yields something real (a process with a pid, a module, a value).
      const text = `<% let r; try { r = ${expr}; } catch (e) { r = undefined; } const real = r !== undefined && r !== null && (typeof r !== 'object' || typeof r.pid === 'number' || typeof r.readFileSync === 'function'); %>v: <%= real ? "ESCAPED " + typeof r : "blocked" %>`;
      const out = await render(text);
      expect(JSON.stringify(out)).not.toContain('ESCAPED');
    });
  });

  it('through dynamic import: the module never loads (its callback would loop forever)', async () => {
    await counter.run(async () => {
      const out = await render('<% import("node:fs").then((m) => { if (m && m.readFileSync) for (;;) {} }, () => 0) %>v: 1');
      expect(out).toMatchObject({ ok: true, docs: [{ value: { v: 1 } }] });
    });
  });

  it.each(CHANNEL_PROBES)('channel $name: another instance sees nothing of the secret', async (probe) => {
    await counter.run(async () => {
      for (const out of await runProbe(renderer, probe)) {
        expect(out.ok, JSON.stringify(out)).toBe(true);
        expect(leaks(out)).toBe(false);
      }
    });
  });

  it.each([
    ['an endless loop', '<% for (;;) {} %>', /^timeout$/],
    ['an endless loop in a promise callback', '<% Promise.resolve().then(() => { for (;;) {} }) %>v: 1', /^timeout$/],
    ['a catastrophic regular expression', 'v: <%= /^(a+)+$/.test("a".repeat(40) + "!") %>', /^timeout$/],
    ['3 GiB outside the heap', 'v: <%= new Uint8Array(3 * 1024 ** 3).length %>', /^undefined$/],
    ['a heap bomb', '<% const a = []; for (;;) a.push(new Array(1e6).fill(1)) %>', /^(memory|timeout)$/],
    ['one huge array', '<% new Array(2 ** 28).fill(0) %>v: 1', /^(memory|timeout)$/],
    ['a 50 MB value', 'v: <%= "x".repeat(50 * 1024 * 1024) %>', /^output$/],
    ['endless recursion', '<% const f = () => f(); f() %>', /^runtime$/],
  ])('limit: %s fails as it should and the host renders on', async (_name, text, kind) => {
    await counter.run(async () => {
      const out = await render(text);
      expect(out.ok ? 'rendered' : out.kind).toMatch(kind);
      expect(await render('v: 2')).toMatchObject({ ok: true, docs: [{ value: { v: 2 } }] });
    });
  }, 60_000);
});
