/**
 * Parameter resolution: declarations (params.yaml) + an instance's values -> typed values for templates.
 * Values keep their real types (KUDO passed strings). Unknown names are errors, never ignored.
 */
import { problem, type Problem } from './problems.js';
import type { ParamDecl } from './schemas.js';
import type { SourceFile, YamlPath } from './source.js';

export type ParamValues = Record<string, unknown>;

export interface ResolvedParams {
  values: ParamValues;
  /** String forms of the values of sensitive parameters, for masking. */
  sensitiveValues: string[];
  problems: Problem[];
}

/** Where values come from, to locate problems: the instance file and the YAML path of its `params`. */
export interface ValuesOrigin {
  source: SourceFile;
  path: YamlPath;
}

export function isRequired(decl: ParamDecl): boolean {
  return decl.required ?? decl.default === undefined;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Checks one value against its declaration; returns [code, message] problems (without location). */
export function checkParamValue(decl: ParamDecl, value: unknown): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = [];
  const actual = typeName(value);
  const typeOk =
    decl.type === 'integer' ? actual === 'integer' : decl.type === 'number' ? actual === 'integer' || actual === 'number' : actual === decl.type;
  if (!typeOk) return [{ code: 'PARAM_TYPE', message: `parameter ${decl.name} must be of type ${decl.type}, got ${actual} ${shortJson(value)}` }];
  if (decl.enum && !decl.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    out.push({ code: 'PARAM_ENUM', message: `parameter ${decl.name} must be one of ${decl.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${shortJson(value)}` });
  }
  if (typeof value === 'number') {
    if (decl.minimum !== undefined && value < decl.minimum) out.push({ code: 'PARAM_MINIMUM', message: `parameter ${decl.name} must be at least ${decl.minimum}, got ${value}` });
    if (decl.maximum !== undefined && value > decl.maximum) out.push({ code: 'PARAM_MAXIMUM', message: `parameter ${decl.name} must be at most ${decl.maximum}, got ${value}` });
  }
  if (typeof value === 'string' && decl.pattern !== undefined) {
    const re = compilePattern(decl.pattern);
    if (re && !re.test(value)) out.push({ code: 'PARAM_PATTERN', message: `parameter ${decl.name} must match /${decl.pattern}/` });
  }
  return out;
}

const patterns = new Map<string, RegExp | undefined>();

/** Compiles (once per pattern text) a declaration's `pattern`; undefined when it is not a valid RegExp. */
export function compilePattern(pattern: string): RegExp | undefined {
  if (patterns.has(pattern)) return patterns.get(pattern);
  let re: RegExp | undefined;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    re = undefined;
  }
  if (patterns.size > 1000) patterns.clear();
  patterns.set(pattern, re);
  return re;
}

function shortJson(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Resolves values for a framework's declarations. `values` come from an instance file (located via
 * `origin`), `args` are plan arguments that are not parameters and are not checked here.
 * Every declared parameter is in the result: one without a value (not given and no default, or given
 * as null) is null, which is an error only for a required one. Sensitive values are never put into messages.
 */
export function resolveParams(decls: readonly ParamDecl[], values: ParamValues, origin?: ValuesOrigin, paramsFile = 'params.yaml'): ResolvedParams {
  const problems: Problem[] = [];
  const byName = new Map(decls.map((d) => [d.name, d]));
  const at = (name: string | undefined, atKey = false): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => {
    if (!origin) return { file: paramsFile, path: [], line: 0, column: 0 };
    const path = name === undefined ? origin.path : [...origin.path, name];
    return { file: origin.source.file, path, ...origin.source.locate(path, atKey) };
  };
  for (const name of Object.keys(values).sort()) {
    if (!byName.has(name)) {
      const known = [...byName.keys()].filter((k) => k.toLowerCase() === name.toLowerCase());
      const hint = known.length > 0 ? ` (did you mean ${known[0]}?)` : '';
      problems.push(problem({ code: 'PARAM_UNKNOWN', ...at(name, true), message: `unknown parameter ${name}: the framework does not declare it${hint}` }));
    }
  }
  const resolved: ParamValues = {};
  const sensitiveValues: string[] = [];
  for (const decl of decls) {
    const given = Object.hasOwn(values, decl.name);
    const value = given ? values[decl.name] : decl.default;
    if (value === undefined || value === null) {
      if (isRequired(decl)) problems.push(problem({ code: 'PARAM_REQUIRED', ...at(undefined), message: `parameter ${decl.name} is required: set it under params` }));
      // Present as null, never absent: the template's params object throws for names it does not hold,
      // so `params.OPT || "none"` must find OPT. Null is "no value": no type or constraint applies to it.
      resolved[decl.name] = null;
      continue;
    }
    const found = checkParamValue(decl, value);
    for (const f of found) {
      const message = decl.sensitive ? f.message.replace(/, got .*$/, '') : f.message;
      problems.push(problem({ code: f.code, ...(given ? at(decl.name) : { file: paramsFile, path: [], line: 0, column: 0 }), message: given ? message : `default of ${message}` }));
    }
    resolved[decl.name] = value;
    if (decl.sensitive) sensitiveValues.push(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return { values: resolved, sensitiveValues, problems };
}

/** A value of the declared type for a required parameter without default, so plans can render (also `baton rbac`, and values validate cannot read). */
export function sampleValue(p: ParamDecl): unknown {
  if (p.enum && p.enum.length > 0) return p.enum[0];
  switch (p.type) {
    case 'integer':
    case 'number':
      return p.minimum ?? (p.maximum !== undefined ? Math.min(1, p.maximum) : 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'string':
      return 'example';
  }
}
