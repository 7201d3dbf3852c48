/**
 * Every channel through which one render could leave something for another in the sandbox's ONE vm
 * context, as a pair of templates: `write` runs for an instance whose params.NAME is a secret, `read`
 * then runs for another instance and prints what it found. Shared by the sandbox channel tests and the
 * reliability suite. A probe is clean when `read` renders and prints none of the secret.
 */
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import type { Renderer, RenderOutput, BaseLocals } from '../../src/render/sandbox/renderer.js';

export interface ChannelProbe {
  name: string;
  write: string;
  read: string;
  /** True: the same template file writes (for instance A) and reads (for instance B). */
  sameTemplate?: boolean;
}

export const SECRET = 'S3cr3t-"q\\uote\'-é-✓';

export const CHANNEL_PROBES: ChannelProbe[] = [
  { name: 'RegExp.$1 after a regex ran on the secret', write: '<% /(.+)/.exec(params.NAME) %>v: 1', read: 'v: <%= String(RegExp.$1) %>' },
  { name: 'RegExp.input / $_', write: '<% /x/.test(params.NAME) %>v: 1', read: 'v: <%= String(RegExp.input) + String(RegExp["$_"]) %>' },
  { name: 'RegExp.lastMatch / $& / lastParen / $+', write: '<% /(.*)/.exec(params.NAME) %>v: 1', read: 'v: <%= [RegExp.lastMatch, RegExp["$&"], RegExp.lastParen, RegExp["$+"]].map(String).join() %>' },
  { name: 'RegExp.leftContext / rightContext', write: '<% /3/.exec(params.NAME) %>v: 1', read: 'v: <%= String(RegExp.leftContext) + "3" + String(RegExp.rightContext) + String(RegExp["$`"]) + "3" + String(RegExp["$\'"]) %>' },
  { name: 'RegExp statics set by a helper (toYaml) on the secret', write: '<% toYaml({ k: params.NAME }); dnsName(params.NAME) %>v: 1', read: 'v: <%= String(RegExp.input) %>' },
  { name: 'a replaced built-in global (JSON)', write: '<% try { globalThis.JSON = { s: params.NAME } } catch (e) {} %>v: 1', read: 'v: <%= String(globalThis.JSON.s) %>' },
  { name: 'a replaced global function (escape)', write: '<% try { globalThis.escape = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(globalThis.escape) %>' },
  { name: 'a new global', write: '<% globalThis.stolen = params.NAME %>v: 1', read: 'v: <%= String(globalThis.stolen) %>' },
  { name: 'a global getter (__defineGetter__)', write: '<% const s = params.NAME; globalThis.__defineGetter__("stolen", () => s) %>v: 1', read: 'v: <%= String(globalThis.stolen) %>' },
  { name: 'a frozen or sealed global object', write: '<% globalThis.kept = params.NAME; try { Object.freeze(globalThis) } catch (e) {} try { Object.seal(globalThis) } catch (e) {} try { Object.preventExtensions(globalThis) } catch (e) {} %>v: 1', read: 'v: <%= String(globalThis.kept) %>' },
  { name: 'a non-configurable global defined through a Proxy of the global object', write: '<% try { Object.defineProperty(new Proxy(globalThis, {}), "stolen", { value: params.NAME }) } catch (e) {} try { Reflect.defineProperty(Proxy.revocable(globalThis, {}).proxy, "stolen2", { value: params.NAME }) } catch (e) {} %>v: 1', read: 'v: <%= String(globalThis.stolen) + String(globalThis.stolen2) %>' },
  { name: 'a stack captured on the global object (not enumerable)', write: '<% try { const o = { [params.NAME]: () => Error.captureStackTrace(globalThis) }; o[params.NAME]() } catch (e) {} %>v: 1', read: 'v: <%= String(globalThis.stack) + String(Object.getOwnPropertyNames(globalThis).filter((n) => n === "stack" || n === "message")) %>' },
  { name: 'an index-keyed global', write: '<% globalThis[0] = params.NAME %>v: 1', read: 'v: <%= String(globalThis[0]) %>' },
  { name: 'a global created through Reflect.set with the global as receiver', write: '<% Reflect.set({}, "stolen", params.NAME, globalThis) %>v: 1', read: 'v: <%= String(globalThis.stolen) %>' },
  { name: 'a global created by a class field of a constructor that returns the global', write: '<% const s = params.NAME; class B { constructor() { return globalThis } } class C extends B { stolen = s } new C() %>v: 1', read: 'v: <%= String(globalThis.stolen) %>' },
  { name: 'a symbol-keyed global', write: '<% globalThis[Symbol.for("k")] = params.NAME %>v: 1', read: 'v: <%= String(globalThis[Symbol.for("k")]) %>' },
  { name: 'Array.prototype additions', write: '<% try { Array.prototype.stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String([].stolen) %>' },
  { name: 'Object.prototype additions', write: '<% try { Object.prototype.stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String({}.stolen) %>' },
  { name: 'String.prototype methods replaced', write: '<% const s = params.NAME; try { String.prototype.trim = function () { return s } } catch (e) {} %>v: 1', read: 'v: <%= " x ".trim() %>' },
  { name: 'Function.prototype additions', write: '<% try { Function.prototype.stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String((function () {}).stolen) %>' },
  { name: 'iterator prototypes', write: '<% try { Object.getPrototypeOf([][Symbol.iterator]()).stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String([][Symbol.iterator]().stolen) %>' },
  { name: 'generator prototypes', write: '<% try { Object.getPrototypeOf(function* () {}).stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(Object.getPrototypeOf(function* () {}).stolen) %>' },
  { name: 'Error.prepareStackTrace', write: '<% const s = params.NAME; try { Error.prepareStackTrace = () => s } catch (e) {} %>v: 1', read: 'v: <%= String(new Error("x").stack) %>' },
  { name: 'Error.stackTraceLimit', write: '<% try { Error.stackTraceLimit = params.NAME.length } catch (e) {} %>v: 1', read: 'v: <%= Error.stackTraceLimit === 10 ? "" : "S3cr3t length " + Error.stackTraceLimit %>' },
  { name: 'Error.captureStackTrace on a shared object', write: '<% try { Error.captureStackTrace(Error, { name: params.NAME }) } catch (e) {} %>v: 1', read: 'v: <%= String(Error.stack) %>' },
  { name: 'the Symbol.for registry', write: '<% Symbol.for("leak:" + params.NAME) %>v: 1', read: 'v: <%= String(Object.getOwnPropertySymbols(globalThis).map(String)) %>' },
  { name: 'Math.random state / replaced Math', write: '<% try { Math.leak = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(Math.leak) %>' },
  { name: 'the prototype of params', write: '<% try { Object.getPrototypeOf(params).stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(params), "stolen")) %>' },
  { name: 'a swapped prototype of the global object', write: '<% globalThis.__proto__ = { stolen: params.NAME } %>v: 1', read: 'v: <%= typeof stolen === "undefined" ? "" : stolen %>' },
  { name: 'the <%= escape function', write: '<% try { escapeFn.stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(escapeFn.stolen) %>' },
  { name: 'a helper function', write: '<% try { toYaml.stolen = params.NAME } catch (e) {} %>v: 1', read: 'v: <%= String(toYaml.stolen) %>' },
  { name: 'a promise callback that runs after the render', write: '<% const s = params.NAME; Promise.resolve().then(() => { globalThis.late = s }) %>v: 1', read: 'v: <%= String(globalThis.late) %>' },
  { name: 'the template\'s bound built-ins (shared closure)', sameTemplate: true, write: '', read: '<% var seen = typeof JSON.s === "string" ? JSON.s : ""; try { JSON = { s: params.NAME } } catch (e) {} %>v: <%= seen %>' },
  { name: 'the template\'s scope object (shared closure)', sameTemplate: true, write: '', read: '<% var seen = typeof __scope === "string" ? __scope : ""; try { __scope = params.NAME } catch (e) {} %>v: <%= seen %>' },
];

const plan = (): { name: string; phase: string; step: string; args: Record<string, string> } => ({ name: 'deploy', phase: 'p', step: 's', args: {} });

function baseFor(name: string, secret: string): BaseLocals {
  return { instance: { name, namespace: 'apps' }, framework: { name: 'web', version: '1.0.0', appVersion: '1' }, params: { NAME: secret }, labels: {}, selectorLabels: {} };
}

/**
 * Runs `write` for instance a (params.NAME = SECRET) and `read` for instance b (an innocent value) in
 * the same batch (for a shared template: the same compiled function), then `read` again alone in a
 * later batch. Returns b's two outputs. (Helpers lowercase and slice values, so the check ignores case.)
 */
export async function runProbe(renderer: Renderer, probe: ChannelProbe): Promise<RenderOutput[]> {
  const texts = probe.sameTemplate ? [['same.yaml.ejs', probe.read]] : [['write.yaml.ejs', probe.write], ['read.yaml.ejs', probe.read]];
  const compiled = texts.map(([name, text]) => {
    const c = compileTemplate({ name: name!, file: `t/${name!}`, text: text!, id: `probe:${probe.name}:${name!}` });
    if (!c.ok) throw new Error(c.problem.message);
    return c.compiled;
  });
  const partials = Object.fromEntries(compiled.map((c) => [c.name, c.key]));
  const writer = compiled[0]!;
  const reader = compiled[compiled.length - 1]!;
  const read = (): Promise<RenderOutput[]> => renderer.run({ base: baseFor('b', 'innocent'), renders: [{ key: reader.key, file: `t/${reader.name}`, plan: plan() }], partials, defines: compiled });
  const [, sameBatch] = await Promise.all([
    renderer.run({ base: baseFor('a', SECRET), renders: [{ key: writer.key, file: `t/${writer.name}`, plan: plan() }], partials, defines: compiled }),
    read(),
  ]);
  const laterBatch = await read();
  return [sameBatch[0]!, laterBatch[0]!];
}

/** Whether an output carries the secret (or a part of it a probe prints). */
export function leaks(out: RenderOutput): boolean {
  return JSON.stringify(out).toLowerCase().includes('s3cr3t');
}
