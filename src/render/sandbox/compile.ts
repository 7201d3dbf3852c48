/**
 * Compiles a template ONCE, in the host, into the source text of a function that the sandbox evaluates
 * inside its own vm context. The host never runs template code: `vm.compileFunction` only parses, and
 * parsing the body on its own guarantees the code cannot break out of the function wrapper.
 * The compiler (../compiler/) works out the YAML context of every `<%= %>` tag; context errors are
 * TEMPLATE_CONTEXT problems with line and column, syntax errors TEMPLATE_SYNTAX.
 */
import vm from 'node:vm';
import { compileBody, ESCAPER_NAMES } from '../compiler/index.js';
import { problem, type Problem } from '../problems.js';
import type { TemplateFile } from '../model.js';
import { SPRIG_HELPER_NAMES } from './helpers-source.js';

/** The data a template sees as variables. */
export const TEMPLATE_LOCALS = ['instance', 'framework', 'params', 'plan', 'labels', 'selectorLabels', 'pipes'] as const;
/** Helpers of the prelude (also globals of the sandbox), bound once per compiled template (see `src`). */
export const TEMPLATE_HELPERS = ['toYaml', 'toJson', 'indent', 'nindent', 'quote', 'b64enc', 'b64dec', 'sha256', 'trunc', 'dnsName', 'required', 'fallback'] as const;
/** Every helper name a template can call: the prelude's and the Sprig set (helpers-source.ts). */
export const ALL_HELPERS: readonly string[] = [...TEMPLATE_HELPERS, ...SPRIG_HELPER_NAMES];
/**
 * Built-ins bound the same way: inside a vm context every global lookup goes through an interceptor
 * (measured ~40x slower than a local), and templates use these all the time.
 */
export const TEMPLATE_BUILTINS = ['Object', 'Array', 'String', 'Number', 'Boolean', 'JSON', 'Math', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'Error'] as const;
const BOUND = [...ALL_HELPERS, ...TEMPLATE_BUILTINS, ...ESCAPER_NAMES];
const PARAMS = ['locals', 'escapeFn', 'include', 'rethrow'];

export interface CompiledTemplate {
  /** Cache key: content id + file (the file name appears in messages). */
  key: string;
  name: string;
  file: string;
  /**
   * A factory expression, evaluated only inside the sandbox: called once with an object holding the helpers,
   * escapers and built-ins, it returns the template function `(locals, escapeFn, include, rethrow) => string`.
   */
  src: string;
}

export type CompileResult = { ok: true; compiled: CompiledTemplate } | { ok: false; problem: Problem; problems: Problem[] };

const cache = new Map<string, CompileResult>();

export function compileTemplate(t: TemplateFile): CompileResult {
  const key = `${t.id}:${t.file}`;
  let result = cache.get(key);
  if (!result) {
    result = compileUncached(t, key);
    if (cache.size > 5000) cache.clear();
    cache.set(key, result);
  }
  return result;
}

function failed(problems: Problem[]): CompileResult {
  return { ok: false, problem: problems[0]!, problems };
}

function compileUncached(t: TemplateFile, key: string): CompileResult {
  const result = compileBody(t.text, TEMPLATE_LOCALS);
  if (!result.ok) {
    if ('syntax' in result) return failed([problem({ code: 'TEMPLATE_SYNTAX', file: t.file, line: result.syntax.line, column: result.syntax.column, message: `template syntax error: ${result.syntax.message}` })]);
    return failed(result.context.map((c) => problem({ code: 'TEMPLATE_CONTEXT', file: t.file, line: c.line, column: c.column, message: c.message })));
  }
  const { body, sites } = result.compiled;
  let src: string;
  try {
    vm.compileFunction(body, PARAMS, { filename: t.file });
    // Runtime errors name the tag that threw: `__at` indexes these lines and columns.
    const lines = JSON.stringify(sites.map((s) => s[0]));
    const columns = JSON.stringify(sites.map((s) => s[1]));
    const located = body.replace('rethrow(e, __at);', 'rethrow(e, __at < 0 ? 0 : __L[__at], __at < 0 ? 0 : __C[__at]);');
    // const, and __scope shadowed inside: the factory's closure is shared by every render of this template
    // (of every instance), so nothing in it may be assignable from template code.
    const bind = BOUND.map((n) => `${n} = __scope.${n}`).join(', ');
    src = `(function (__scope) {\n"use strict";\nconst ${bind};\nconst __L = ${lines}, __C = ${columns};\nreturn function (${PARAMS.join(', ')}) {\n"use strict";\nconst __scope = void 0;\n${located}\n};\n})`;
    // Parsed only (never run here): a template that redeclares __scope fails now, not inside the sandbox.
    new vm.Script(src, { filename: t.file });
  } catch (err) {
    return failed([syntaxProblem(t, body, sites, err)]);
  }
  return { ok: true, compiled: { key, name: t.name, file: t.file, src } };
}

/** A JavaScript syntax error in a tag: the tag is found by compiling the body up to each `__at` marker. */
function syntaxProblem(t: TemplateFile, body: string, sites: [number, number][], err: unknown): Problem {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'syntax error';
  let at: [number, number] = [0, 0];
  const m = /^body:(\d+)/m.exec(stackOf(body));
  if (m) {
    const lines = body.split('\n').slice(0, Number(m[1]));
    for (let i = lines.length - 1; i >= 0; i--) {
      const hit = /__at = (\d+)/.exec(lines[i] ?? '');
      if (hit) {
        at = sites[Number(hit[1])] ?? at;
        break;
      }
    }
  }
  return problem({ code: 'TEMPLATE_SYNTAX', file: t.file, line: at[0], column: at[1], message: `template syntax error: ${message}` });
}

function stackOf(body: string): string {
  try {
    vm.compileFunction(body, PARAMS, { filename: 'body' });
    return '';
  } catch (err) {
    return err instanceof Error ? (err.stack ?? '') : '';
  }
}
