/**
 * Compiles an EJS template ONCE, in the host, into the source text of a function that the sandbox
 * evaluates inside its own vm context. The host never runs template code: `vm.compileFunction` only
 * parses, and parsing the body on its own guarantees the code cannot break out of the function wrapper.
 */
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { problem, type Problem } from '../problems.js';
import type { TemplateFile } from '../model.js';

interface EjsTemplate {
  source: string;
  compile(): unknown;
}
interface EjsModule {
  Template: new (text: string, opts: Record<string, unknown>) => EjsTemplate;
}
const ejs = createRequire(import.meta.url)('ejs') as EjsModule;

/** The data a template sees as variables. */
export const TEMPLATE_LOCALS = ['instance', 'framework', 'params', 'plan', 'labels', 'selectorLabels'] as const;
/** Helpers (also globals of the sandbox), bound once per compiled template (see `src`). */
export const TEMPLATE_HELPERS = ['toYaml', 'toJson', 'indent', 'nindent', 'quote', 'b64enc', 'b64dec', 'sha256', 'trunc', 'dnsName', 'required', 'fallback'] as const;
/**
 * Built-ins bound the same way: inside a vm context every global lookup goes through an interceptor
 * (measured ~40x slower than a local), and templates use these all the time.
 */
export const TEMPLATE_BUILTINS = ['Object', 'Array', 'String', 'Number', 'Boolean', 'JSON', 'Math', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'Error'] as const;
const DESTRUCTURED = [...TEMPLATE_LOCALS];
const BOUND = [...TEMPLATE_HELPERS, ...TEMPLATE_BUILTINS];
const PARAMS = ['locals', 'escapeFn', 'include', 'rethrow'];

export interface CompiledTemplate {
  /** Cache key: content id + file (the file name appears in messages). */
  key: string;
  name: string;
  file: string;
  /**
   * A factory expression, evaluated only inside the sandbox: called once with an object holding the helpers
   * and built-ins, it returns the template function `(locals, escapeFn, include, rethrow) => string`.
   */
  src: string;
}

export type CompileResult = { ok: true; compiled: CompiledTemplate } | { ok: false; problem: Problem };

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

function compileUncached(t: TemplateFile, key: string): CompileResult {
  let body: string;
  let src: string;
  try {
    const tpl = new ejs.Template(t.text, {
      strict: true,
      localsName: 'locals',
      destructuredLocals: DESTRUCTURED,
      compileDebug: true,
      filename: t.file,
    });
    // compile() builds tpl.source (and a host Function we never call); it is the only way ejs 7 exposes it.
    tpl.compile();
    // `undefined` is a global: in a vm context each lookup of it is slow, and __append runs for every tag.
    const source = tpl.source.replace('if (s !== undefined && s !== null) __output += s', 'if (s != null) __output += s');
    body = `"use strict";\nvar __line = 1;\ntry {\n${source}} catch (e) {\n  rethrow(e, __line);\n}\n`;
    vm.compileFunction(body, PARAMS, { filename: t.file });
    // const, and __scope shadowed inside: the factory's closure is shared by every render of this template
    // (of every instance), so nothing in it may be assignable from template code.
    const bind = BOUND.map((n) => `${n} = __scope.${n}`).join(', ');
    src = `(function (__scope) {\n"use strict";\nconst ${bind};\nreturn function (${PARAMS.join(', ')}) {\n"use strict";\nconst __scope = void 0;\n${body}\n};\n})`;
    // Parsed only (never run here): a template that redeclares __scope fails now, not inside the sandbox.
    new vm.Script(src, { filename: t.file });
  } catch (err) {
    return { ok: false, problem: syntaxProblem(t, err) };
  }
  return { ok: true, compiled: { key, name: t.name, file: t.file, src } };
}

function syntaxProblem(t: TemplateFile, err: unknown): Problem {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'syntax error';
  let line = 0;
  const unclosed = /Could not find matching close tag for "(.+?)"/.exec(message);
  if (unclosed) {
    line = lineOfOffset(t.text, t.text.lastIndexOf(unclosed[1] ?? '<%'));
  } else if (err instanceof SyntaxError) {
    line = templateLineOfSyntaxError(t, err);
  }
  return problem({
    code: 'TEMPLATE_SYNTAX',
    file: t.file,
    line,
    column: 0,
    message: `template syntax error: ${message.replace(/ in \S+ while compiling ejs$/, '').replace(/ while compiling ejs$/, '')}`,
  });
}

function lineOfOffset(text: string, offset: number): number {
  return offset < 0 ? 0 : text.slice(0, offset).split('\n').length;
}

/** Re-parses ejs's generated body to find the generated line, then the template line it came from. */
function templateLineOfSyntaxError(t: TemplateFile, _err: SyntaxError): number {
  let source: string;
  try {
    const tpl = new ejs.Template(t.text, { strict: true, localsName: 'locals', destructuredLocals: DESTRUCTURED, compileDebug: true });
    try {
      tpl.compile();
    } catch {
      // expected: we only want tpl.source
    }
    source = tpl.source;
    vm.compileFunction(source, PARAMS, { filename: 'body' });
    return 0;
  } catch (err) {
    const m = /^body:(\d+)/.exec(err instanceof Error ? (err.stack ?? '') : '');
    if (!m || !source!) return 0;
    const lines = source.split('\n').slice(0, Number(m[1]));
    for (let i = lines.length - 1; i >= 0; i--) {
      const hit = /__line = (\d+)/.exec(lines[i] ?? '');
      if (hit) return Number(hit[1]);
    }
    return 1;
  }
}
