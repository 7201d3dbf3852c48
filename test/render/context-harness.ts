/**
 * Renders template text in-process through the real compiler and the sandbox's own helpers and escapers
 * (the PRELUDE evaluated in a vm context, as the render bench's floor does), so tests can look at the
 * rendered YAML text itself and parse it with several parsers.
 */
import vm from 'node:vm';
import { compileTemplate } from '../../src/render/sandbox/compile.js';
import { PRELUDE } from '../../src/render/sandbox/prelude.js';
import { sandboxYamlSource } from '../../src/render/sandbox/renderer.js';

type TemplateFn = (locals: Record<string, unknown>, escapeFn: unknown, include: unknown, rethrow: (e: unknown, line?: number, column?: number) => never) => string;

const context = vm.createContext({});
// As the worker does: js-yaml's own source inside the context, for fromYaml().
vm.runInContext(`globalThis.__batonYaml = (function () { var exports = {}, module = { exports: exports };\n${sandboxYamlSource()}\n;return module.exports; })();`, context);
const api = vm.runInContext(PRELUDE, context) as { scope(): Record<string, unknown> };
const scope = api.scope();

export type TextResult = { ok: true; text: string } | { ok: false; code: string; line: number; column: number; message: string };

let n = 0;
export function renderText(text: string, params: Record<string, unknown>): TextResult {
  const c = compileTemplate({ name: 'main.yaml.ejs', file: 't/main.yaml.ejs', text, id: `harness-${n++}` });
  if (!c.ok) return { ok: false, code: c.problem.code, line: c.problem.line, column: c.problem.column, message: c.problem.message };
  const factory = vm.runInContext(c.compiled.src, context) as (s: Record<string, unknown>) => TemplateFn;
  const fn = factory(scope);
  let caught: { kind: string; line: number; column: number; message: string } | undefined;
  const rethrow = (e: unknown, line = 0, column = 0): never => {
    const err = e as { kind?: string; message?: string; line?: number | null; column?: number };
    caught = { kind: err.kind ?? 'runtime', line: err.line ?? line, column: err.column || column, message: String(err.message) };
    throw e;
  };
  const locals = { instance: { name: 'site', namespace: 'apps' }, framework: { name: 'web', version: '1.0.0', appVersion: '1' }, params, plan: { name: 'deploy', phase: 'p', step: 's', args: {} }, labels: {}, selectorLabels: {} };
  try {
    return { ok: true, text: fn(locals, undefined, undefined, rethrow) };
  } catch (e) {
    const k = caught ?? { kind: 'runtime', line: 0, column: 0, message: String(e) };
    return { ok: false, code: k.kind === 'value' ? 'TEMPLATE_VALUE' : k.kind === 'undefined' ? 'TEMPLATE_UNDEFINED' : 'TEMPLATE_RUNTIME', line: k.line, column: k.column, message: k.message };
  }
}
