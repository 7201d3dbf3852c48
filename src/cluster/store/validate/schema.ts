/**
 * Custom resource validation against a CRD version's openAPIV3Schema, and pruning of unknown fields as
 * for a structural schema (kept under `x-kubernetes-preserve-unknown-fields: true`). Covers what
 * framework authors use: type, required, enum, properties, additionalProperties, items, nullable,
 * int-or-string, minimum/maximum, min/max length and items, pattern.
 */
import { isRecord } from '../../../kube/object.js';
import { RE2JS } from 're2js';
import { cause, type Cause } from '../errors.js';

type Schema = Record<string, unknown>;

export interface SchemaResult {
  value: unknown;
  causes: Cause[];
  /** Paths of fields dropped because the schema does not declare them. */
  unknown: string[];
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, v: unknown): boolean {
  const actual = typeOf(v);
  if (expected === 'number') return actual === 'number' || actual === 'integer';
  return actual === expected;
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function bounds(s: Schema, v: unknown, path: string, out: Cause[]): void {
  const at = path === '' ? '' : path;
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) out.push(cause.invalid(at, v, `${at} in body should be greater than or equal to ${s.minimum}`));
    if (typeof s.maximum === 'number' && v > s.maximum) out.push(cause.invalid(at, v, `${at} in body should be less than or equal to ${s.maximum}`));
  }
  if (typeof v === 'string') {
    if (typeof s.minLength === 'number' && v.length < s.minLength) out.push(cause.invalid(at, v, `${at} in body should be at least ${s.minLength} chars long`));
    if (typeof s.maxLength === 'number' && v.length > s.maxLength) out.push({ type: 'FieldValueTooLong', message: `Too long: may not be more than ${s.maxLength} bytes`, field: at });
    if (typeof s.pattern === 'string') {
      // RE2 (linear time), as the real API server evaluates CRD patterns with Go's regexp.
      const re = re2(s.pattern);
      if (re && !re.test(v)) out.push(cause.invalid(at, v, `${at} in body should match '${s.pattern}'`));
    }
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) out.push(cause.invalid(at, v.length, `${at} in body should have at least ${s.minItems} items`));
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) out.push({ type: 'FieldValueTooMany', message: `Too many: ${v.length}: must have at most ${s.maxItems} items`, field: at });
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => e === v)) out.push(cause.unsupported(at, v, s.enum));
}

function walkObject(s: Schema, v: Record<string, unknown>, path: string, res: SchemaResult): Record<string, unknown> {
  const props = isRecord(s.properties) ? s.properties : undefined;
  const additional = isRecord(s.additionalProperties) ? s.additionalProperties : undefined;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true || s.additionalProperties === true;
  // A schema that says nothing about the object's shape keeps it (structural schemas always say).
  const open = !props && !additional && s.type !== 'object';
  for (const r of Array.isArray(s.required) ? s.required : []) {
    if (typeof r === 'string' && v[r] === undefined) res.causes.push(cause.required(child(path, r)));
  }
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const ps = props && isRecord(props[k]) ? props[k] : additional;
    if (ps) out[k] = walk(ps, val, child(path, k), res);
    else if (preserve || open) out[k] = val;
    else res.unknown.push(child(path, k));
  }
  return out;
}

function walk(s: Schema, v: unknown, path: string, res: SchemaResult): unknown {
  const type = typeof s.type === 'string' ? s.type : undefined;
  if (v === null) {
    if (s.nullable !== true) res.causes.push({ type: 'FieldValueTypeInvalid', message: `Invalid value: "null": ${path} in body must be of type ${type ?? 'object'}: "null"`, field: path });
    return v;
  }
  if (s['x-kubernetes-int-or-string'] === true) {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) res.causes.push(cause.invalid(path, v, `${path} in body must be of type integer,string: "${typeOf(v)}"`));
    return v;
  }
  if (type !== undefined && !typeMatches(type, v)) {
    res.causes.push({ type: 'FieldValueTypeInvalid', message: `Invalid value: "${typeOf(v)}": ${path} in body must be of type ${type}: "${typeOf(v)}"`, field: path });
    return v;
  }
  bounds(s, v, path, res.causes);
  if (Array.isArray(v)) {
    const items = isRecord(s.items) ? s.items : undefined;
    return items ? v.map((item, i) => walk(items, item, `${path}[${i}]`, res)) : v;
  }
  return isRecord(v) ? walkObject(s, v, path, res) : v;
}

/** Validates and prunes the object's content (apiVersion, kind and metadata are the server's). */
export function checkAgainstSchema(schema: Schema, obj: Record<string, unknown>): SchemaResult {
  const res: SchemaResult = { value: obj, causes: [], unknown: [] };
  const root: Record<string, unknown> = {};
  const props = isRecord(schema.properties) ? schema.properties : {};
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const r of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof r === 'string' && r !== 'metadata' && obj[r] === undefined) res.causes.push(cause.required(r));
  }
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') root[k] = v;
    else if (isRecord(props[k])) root[k] = walk(props[k], v, k, res);
    else if (preserve) root[k] = v;
    else res.unknown.push(k);
  }
  res.value = root;
  return res;
}

const patterns = new Map<string, RE2JS | undefined>();

/** A schema `pattern` compiled with RE2 (linear-time matching, Go's regexp syntax as the real API server uses); undefined when RE2 refuses it. */
function re2(pattern: string): RE2JS | undefined {
  if (patterns.has(pattern)) return patterns.get(pattern);
  let re: RE2JS | undefined;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    re = undefined;
  }
  if (patterns.size >= 1000) patterns.clear();
  patterns.set(pattern, re);
  return re;
}
