/**
 * Where the variables of a svc.yml come from. DC/OS renders svc.yml with the scheduler's environment,
 * which the package's marathon.json.mustache sets from the options of its config.json schema (defaults,
 * overridden by the user's options.json). Following that chain, each variable that carries an option
 * becomes a typed Baton parameter named after the variable, with the option's description and default.
 * Without the package, every variable becomes a required string parameter.
 */
import Mustache from 'mustache';
import type { ParamDecl, ParamType } from '../../render/schemas.js';
import type { FindingLog } from '../report.js';
import { isRecord, scalarText } from '../util.js';
import { locateMustacheError } from './mustache.js';
import { lit, type Expr, type Part } from './expr.js';

export interface OptionInfo {
  path: string;
  schema: Record<string, unknown>;
  value: unknown;
}

export interface Variables {
  /** How a variable of svc.yml (or of a config template, through TASKCFG_) reads in a template. */
  expr: (name: string) => Expr | undefined;
  /** Its value at import time (for sections, placement and strategies fixed at import). */
  value: (name: string) => string | undefined;
  /** TASKCFG_ALL_X and TASKCFG_<POD>_X: variables every task (of a pod) sees, by X. */
  taskConfig: (pod: string) => Map<string, Expr>;
  /** Parameter declarations by name, for the variables that are parameters. */
  params: Map<string, ParamDecl>;
  /** Whether the chain through the package was followed. */
  fromPackage: boolean;
}

/** Variables the SDK provides to every svc.yml and task, and what they become. */
export const BUILTIN: Record<string, Part | undefined> = {
  FRAMEWORK_NAME: { instance: true },
  SERVICE_NAME: { instance: true },
};

const OPT = '\uE200';

export function variablesWithoutPackage(names: Iterable<string>, log: FindingLog): Variables {
  const params = new Map<string, ParamDecl>();
  for (const n of names) if (!(n in BUILTIN) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) params.set(n, { name: n, type: 'string' });
  if (params.size > 0) log.mapped('IMPORT_DCOS_NO_PACKAGE', { file: '', line: 0, column: 0 }, `no --package: ${params.size} variable(s) become required string parameters (pass the universe package folder to get types, defaults and descriptions)`);
  return {
    expr: (name) => {
      const b = BUILTIN[name];
      if (b) return [b];
      return params.has(name) ? [{ param: name }] : undefined;
    },
    value: () => undefined,
    taskConfig: () => new Map(),
    params,
    fromPackage: false,
  };
}

/** The options of config.json (nested `properties`), with their values (defaults, then options.json). */
export function readOptions(config: unknown, options: unknown, log: FindingLog): OptionInfo[] {
  const out: OptionInfo[] = [];
  const walk = (schema: Record<string, unknown>, prefix: string, given: unknown): void => {
    const props = isRecord(schema.properties) ? schema.properties : {};
    for (const [k, sub] of Object.entries(props)) {
      if (!isRecord(sub)) continue;
      const path = prefix ? `${prefix}.${k}` : k;
      const userValue = isRecord(given) ? given[k] : undefined;
      if (sub.type === 'object' && isRecord(sub.properties)) {
        walk(sub, path, userValue);
        continue;
      }
      let value = sub.default;
      if (userValue !== undefined) {
        value = userValue;
        log.mapped('IMPORT_DCOS_OPTION', { file: 'options.json', line: 0, column: 0 }, `option ${path} = ${JSON.stringify(userValue)} (from options.json) replaces the default ${JSON.stringify(sub.default)}`);
      }
      out.push({ path, schema: sub, value });
    }
  };
  if (isRecord(config)) walk(config, '', options);
  return out;
}

function paramFromOption(name: string, o: OptionInfo): ParamDecl {
  const t = o.schema.type;
  const type: ParamType = t === 'integer' || t === 'number' || t === 'boolean' || t === 'array' || t === 'object' ? t : 'string';
  const decl: ParamDecl = { name, type };
  if (typeof o.schema.description === 'string') decl.description = o.schema.description;
  if (o.value !== undefined && o.value !== null) decl.default = o.value;
  else decl.required = false;
  if (Array.isArray(o.schema.enum)) decl.enum = o.schema.enum;
  if (typeof o.schema.minimum === 'number') decl.minimum = o.schema.minimum;
  if (typeof o.schema.maximum === 'number') decl.maximum = o.schema.maximum;
  if (typeof o.schema.pattern === 'string') decl.pattern = o.schema.pattern;
  decl.group = o.path.split('.')[0];
  if (/(password|secret|token)/i.test(name) && type === 'string') decl.sensitive = true;
  return decl;
}

/**
 * Renders marathon.json.mustache with every option replaced by a marker, reads its `env`, and maps each
 * environment variable to the option it carries (or to its constant value).
 */
export function variablesFromPackage(marathonText: string, options: OptionInfo[], resource: unknown, log: FindingLog): Variables | undefined {
  const file = 'marathon.json.mustache';
  const byPath = new Map(options.map((o) => [o.path, o]));
  let tokens: unknown[];
  try {
    tokens = Mustache.parse(marathonText);
  } catch (err) {
    log.error('IMPORT_MUSTACHE_SYNTAX', locateMustacheError(file, marathonText, err), `Mustache syntax error: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  const lookup = (path: string): unknown => {
    if (byPath.has(path)) return byPath.get(path)!.value;
    let v: unknown = path.startsWith('resource.') ? resource : undefined;
    if (v === undefined) return undefined;
    for (const k of path.split('.').slice(1)) v = isRecord(v) ? v[k] : undefined;
    return v;
  };
  const render = (toks: unknown[]): string =>
    toks
      .map((t) => {
        const [type, value, , , children] = t as [string, string, number, number, unknown[]];
        if (type === 'text') return value;
        if (type === 'name' || type === '&') {
          if (byPath.has(value)) return `${OPT}${value}${OPT}`;
          const v = lookup(value);
          return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
        }
        if (type === '#' || type === '^') {
          const v = lookup(value);
          const truthy = !(v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0));
          return truthy === (type === '#') ? render(children) : '';
        }
        return '';
      })
      .join('');
  let app: unknown;
  const rendered = render(tokens);
  try {
    app = JSON.parse(rendered.replace(new RegExp(`${OPT}([^${OPT}]*)${OPT}`, 'g'), (_m, p: string) => `${OPT}${p}${OPT}`));
  } catch (err) {
    log.error('IMPORT_MARATHON_JSON', { file, line: 0, column: 0 }, `marathon.json.mustache does not render to JSON with the defaults: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  const env = isRecord(app) && isRecord(app.env) ? app.env : {};
  const params = new Map<string, ParamDecl>();
  const exprs = new Map<string, Expr>();
  const values = new Map<string, string>();
  const marker = new RegExp(`${OPT}([^${OPT}]*)${OPT}`, 'g');
  for (const [key, raw] of Object.entries(env)) {
    if (typeof raw !== 'string') continue;
    const refs = [...raw.matchAll(marker)];
    values.set(key, raw.replace(marker, (_m, p: string) => stringValue(byPath.get(p)?.value)));
    if (refs.length === 0) {
      exprs.set(key, lit(raw));
      continue;
    }
    if (refs.length === 1 && refs[0]![0] === raw) {
      const o = byPath.get(refs[0]![1]!)!;
      params.set(key, paramFromOption(key, o));
      exprs.set(key, [{ param: key }]);
      continue;
    }
    // Text around options: each option becomes a parameter named after it.
    const parts: Part[] = [];
    let last = 0;
    for (const m of refs) {
      if (m.index > last) parts.push({ lit: raw.slice(last, m.index) });
      const pname = m[1]!.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
      params.set(pname, paramFromOption(pname, byPath.get(m[1]!)!));
      parts.push({ param: pname });
      last = m.index + m[0].length;
    }
    if (last < raw.length) parts.push({ lit: raw.slice(last) });
    exprs.set(key, parts);
  }
  return {
    expr: (name) => {
      const b = BUILTIN[name];
      if (b) return [b];
      return exprs.get(name);
    },
    value: (name) => values.get(name),
    taskConfig: (pod) => {
      const out = new Map<string, Expr>();
      const podPrefix = `TASKCFG_${pod.toUpperCase().replace(/-/g, '_')}_`;
      for (const [k, e] of exprs) {
        if (k.startsWith('TASKCFG_ALL_')) out.set(k.slice('TASKCFG_ALL_'.length), e);
      }
      for (const [k, e] of exprs) if (k.startsWith(podPrefix)) out.set(k.slice(podPrefix.length), e);
      return out;
    },
    params,
    fromPackage: true,
  };
}

export function stringValue(v: unknown): string {
  return v === undefined || v === null ? '' : scalarText(v);
}
