/**
 * KUDO params.yaml -> Baton parameter declarations. KUDO passed every scalar to templates as a string;
 * Baton passes real types. The type comes from `type:` when given, else it is inferred from the default
 * ("3" -> integer, "true" -> boolean); each inference is reported. Array and map defaults may be YAML text.
 */
import { parse as parseYaml } from 'yaml';
import type { ParamDecl, ParamType } from '../../render/schemas.js';
import type { FindingLog, SourceLocation } from '../report.js';
import type { YamlSource } from '../yaml-source.js';
import { isRecord } from '../util.js';

export interface KudoParam {
  decl: ParamDecl;
  /** Whether templates may see no value (no default, not required): printed as "" like KUDO did. */
  optional: boolean;
}

const INT = /^-?(0|[1-9][0-9]*)$/;
const SENSITIVE = /(PASSWORD|PASSWD|SECRET|TOKEN|PRIVATE_KEY|CREDENTIAL)/i;
const KNOWN = new Set(['name', 'displayName', 'description', 'required', 'default', 'trigger', 'type', 'immutable', 'enum', 'group', 'advanced', 'hint']);

/** Reads params.yaml (the `parameters:` list, or the older map form). */
export function convertParams(src: YamlSource, log: FindingLog, plans: ReadonlyMap<string, string>): KudoParam[] {
  const v = src.value;
  let entries: { raw: Record<string, unknown>; path: (string | number)[] }[] = [];
  if (v === null || v === undefined) return [];
  if (isRecord(v) && Array.isArray(v.parameters)) {
    entries = v.parameters.map((raw, i) => ({ raw: isRecord(raw) ? raw : {}, path: ['parameters', i] }));
    if (Array.isArray(v.groups) && v.groups.length > 0) {
      log.untranslated('IMPORT_PARAM_GROUPS', src.at(['groups']), 'parameter groups (display names, descriptions, priorities) are not kept: Baton keeps each parameter\'s `group` name only');
    }
  } else if (isRecord(v) && v.parameters === undefined) {
    entries = Object.entries(v)
      .filter(([k]) => k !== 'apiVersion')
      .map(([name, raw]) => ({ raw: { ...(isRecord(raw) ? raw : {}), name }, path: [name] }));
    log.mapped('IMPORT_PARAM_OLD_FORMAT', src.at([]), 'params.yaml uses the older map form (NAME: {...}); read as a list of parameters');
  } else {
    log.error('IMPORT_PARAM_FORMAT', src.at([]), 'params.yaml must hold a `parameters:` list');
    return [];
  }
  const out: KudoParam[] = [];
  const seen = new Set<string>();
  for (const { raw, path } of entries) {
    const p = convertParam(raw, path, src, log, plans);
    if (!p) continue;
    if (seen.has(p.decl.name)) {
      log.error('IMPORT_PARAM_DUPLICATE', src.at(path), `parameter ${p.decl.name} is declared twice`);
      continue;
    }
    seen.add(p.decl.name);
    out.push(p);
  }
  return out;
}

function convertParam(raw: Record<string, unknown>, path: (string | number)[], src: YamlSource, log: FindingLog, plans: ReadonlyMap<string, string>): KudoParam | undefined {
  const at = (field?: string) => src.at(field ? [...path, field] : path);
  const name = raw.name;
  if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    log.error('IMPORT_PARAM_NAME', at('name'), `parameter name ${JSON.stringify(name)} must be an identifier (letters, digits and "_")`);
    return undefined;
  }
  for (const k of Object.keys(raw)) if (!KNOWN.has(k)) log.untranslated('IMPORT_PARAM_FIELD', at(k), `parameter ${name}: field ${k} is not a KUDO parameter field; left out`);
  for (const k of ['displayName', 'hint', 'advanced'] as const) {
    if (raw[k] !== undefined) log.untranslated('IMPORT_PARAM_UI_FIELD', at(k), `parameter ${name}: ${k} is for user interfaces; Baton has no counterpart`);
  }
  const type = paramType(name, raw, at, log);
  if (type === undefined) return undefined;
  const rawDefault = raw.default;
  const decl: ParamDecl = { name, type };
  if (typeof raw.description === 'string') decl.description = raw.description.trim();
  if (typeof raw.group === 'string') decl.group = raw.group;
  if (rawDefault !== undefined && rawDefault !== null) {
    const d = coerce(rawDefault, type);
    if (d === undefined) {
      log.error('IMPORT_PARAM_DEFAULT', at('default'), `parameter ${name}: default ${JSON.stringify(rawDefault)} is not a valid ${type}`);
      return undefined;
    }
    decl.default = d;
  }
  const required = raw.required === true || raw.required === 'true' || raw.required === 'True';
  const optional = decl.default === undefined && !required;
  if (optional) decl.required = false;
  constraints(decl, raw, at, log, plans);
  return { decl, optional };
}

type At = (field?: string) => SourceLocation;

function paramType(name: string, raw: Record<string, unknown>, at: At, log: FindingLog): ParamType | undefined {
  const kudoType = raw.type === undefined ? 'string' : raw.type;
  if (typeof kudoType !== 'string' || !['string', 'integer', 'number', 'boolean', 'array', 'map'].includes(kudoType)) {
    log.error('IMPORT_PARAM_TYPE', at('type'), `parameter ${name}: unknown type ${JSON.stringify(kudoType)} (string, integer, number, boolean, array or map)`);
    return undefined;
  }
  if (kudoType !== 'string') return kudoType === 'map' ? 'object' : (kudoType as ParamType);
  const inferred = inferType(raw.default, raw.enum);
  if (inferred !== 'string') {
    log.mapped('IMPORT_PARAM_TYPE_INFERRED', at('default'), `parameter ${name}: type ${inferred}, inferred from its default ${JSON.stringify(raw.default)} (KUDO passed it as a string; Baton values of ${name} must now be ${inferred === 'integer' ? 'integers' : 'booleans'})`);
  }
  return inferred;
}

/** enum, immutable, trigger, and sensitive for names that suggest secrets. */
function constraints(decl: ParamDecl, raw: Record<string, unknown>, at: At, log: FindingLog, plans: ReadonlyMap<string, string>): void {
  const { name, type } = decl;
  if (Array.isArray(raw.enum)) {
    const values = raw.enum.map((e) => coerce(e, type));
    if (values.some((e) => e === undefined)) log.error('IMPORT_PARAM_ENUM', at('enum'), `parameter ${name}: enum values must be of type ${type}`);
    else decl.enum = values;
  }
  if (raw.immutable === true || raw.immutable === 'true') decl.immutable = true;
  if (typeof raw.trigger === 'string') {
    const plan = plans.get(raw.trigger);
    if (plan === undefined) log.error('IMPORT_PARAM_TRIGGER', at('trigger'), `parameter ${name}: trigger names no plan of operator.yaml (${JSON.stringify(raw.trigger)})`);
    else decl.trigger = plan;
  }
  if (SENSITIVE.test(name) && type === 'string') {
    decl.sensitive = true;
    log.mapped('IMPORT_PARAM_SENSITIVE', at('name'), `parameter ${name}: marked sensitive (its name suggests a secret): Baton masks it in output, status and logs`);
  }
}

function inferType(d: unknown, enumValues: unknown): ParamType {
  const candidates = [d, ...(Array.isArray(enumValues) ? (enumValues as unknown[]) : [])].filter((x) => x !== undefined && x !== null);
  if (candidates.length === 0) return 'string';
  if (candidates.every((x) => typeof x === 'boolean' || (typeof x === 'string' && /^(true|false)$/.test(x)))) return 'boolean';
  if (candidates.every((x) => (typeof x === 'number' && Number.isInteger(x)) || (typeof x === 'string' && INT.test(x)))) return 'integer';
  return 'string';
}

/** A value of the parameter's type, from KUDO's string or YAML form; undefined when it does not convert. */
export function coerce(v: unknown, type: ParamType): unknown {
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
    case 'integer':
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      return typeof v === 'string' && INT.test(v.trim()) ? Number(v.trim()) : undefined;
    case 'number':
      if (typeof v === 'number') return v;
      return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      return typeof v === 'string' && /^(true|false)$/i.test(v.trim()) ? v.trim().toLowerCase() === 'true' : undefined;
    case 'array':
    case 'object':
      return structure(v, type);
  }
}

/** Arrays and maps, given as YAML or as YAML text (KUDO accepted both). */
function structure(v: unknown, type: 'array' | 'object'): unknown {
  let x = v;
  if (typeof v === 'string') {
    try {
      x = parseYaml(v);
    } catch {
      return undefined;
    }
  }
  if (type === 'array') return Array.isArray(x) ? x : undefined;
  return isRecord(x) ? x : undefined;
}
