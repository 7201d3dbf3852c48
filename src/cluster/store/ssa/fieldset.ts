/**
 * Field sets in the FieldsV1 format of managedFields: `{"f:spec":{"f:replicas":{}}}`; keyed list items
 * are `k:{"name":"web"}` with a `.` entry for the item itself. An empty object is a leaf: the field
 * owned as a whole (scalars, atomic lists, empty maps).
 */
import { isRecord } from '../../../kube/object.js';
import { mergeKeyFor } from '../patch/keys.js';

export interface FieldSet {
  [element: string]: FieldSet;
}

export type FieldPath = string[];

export interface SetOptions {
  /** Custom resources: lists are atomic unless their schema says `x-kubernetes-list-type: map`. */
  custom: boolean;
}

/** A (sub)schema of a custom resource, followed alongside the value. */
export type Schema = Record<string, unknown> | undefined;

export function childSchema(s: Schema, key: string): Schema {
  if (!s) return undefined;
  const p = isRecord(s.properties) ? s.properties[key] : undefined;
  if (isRecord(p)) return p;
  return isRecord(s.additionalProperties) ? s.additionalProperties : undefined;
}

export function itemsSchema(s: Schema): Schema {
  return s && isRecord(s.items) ? s.items : undefined;
}

/** The keys identifying items of a list, or undefined when the list is atomic. */
export function listKeys(field: string, list: unknown[], opts: SetOptions, schema: Schema): string[] | undefined {
  if (!list.every(isRecord)) return undefined;
  let keys: string[] | undefined;
  if (opts.custom) {
    const mapKeys = schema?.['x-kubernetes-list-map-keys'];
    keys = schema?.['x-kubernetes-list-type'] === 'map' && Array.isArray(mapKeys) ? mapKeys.filter((k): k is string => typeof k === 'string') : undefined;
  } else {
    const key = mergeKeyFor(field, list);
    keys = key === undefined ? undefined : [key];
  }
  if (!keys || keys.length === 0) return undefined;
  const required = keys;
  return list.every((i) => isRecord(i) && required.every((k) => i[k] !== undefined)) ? keys : undefined;
}

function itemKey(item: Record<string, unknown>, keys: string[]): string {
  const chosen: Record<string, unknown> = {};
  for (const k of keys) chosen[k] = item[k];
  // Built-in ports are identified by number and protocol in real managedFields.
  if (keys.length === 1 && (keys[0] === 'containerPort' || keys[0] === 'port') && item.protocol !== undefined) chosen.protocol = item.protocol;
  const sorted = Object.keys(chosen).sort();
  return `k:${JSON.stringify(Object.fromEntries(sorted.map((k) => [k, chosen[k]])))}`;
}

function valueSet(field: string, value: unknown, opts: SetOptions, schema: Schema): FieldSet {
  if (isRecord(value)) return setOf(value, opts, schema);
  if (Array.isArray(value)) {
    const keys = listKeys(field, value, opts, schema);
    if (keys === undefined) return {};
    const out: FieldSet = {};
    for (const item of value as Record<string, unknown>[]) out[itemKey(item, keys)] = { '.': {}, ...setOf(item, opts, itemsSchema(schema)) };
    return out;
  }
  return {};
}

/** The set of fields present in a map. */
export function setOf(obj: Record<string, unknown>, opts: SetOptions, schema?: Schema): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[`f:${k}`] = valueSet(k, v, opts, childSchema(schema, k));
  return out;
}

export function isEmpty(s: FieldSet): boolean {
  for (const _ in s) return false;
  return true;
}

/*
 * Sets are sets of paths, as in structured-merge-diff: an empty object marks its path as a member; a
 * non-empty one holds member paths below it (and `.` when the node itself is a member too). A member
 * path never implies ownership of paths below it.
 */

/** The node's own membership, in the non-empty form (`.`), so it can sit beside children. */
function expand(s: FieldSet): FieldSet {
  return isEmpty(s) ? { '.': {} } : s;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    if (mine === undefined) out[k] = v;
    else if (isEmpty(mine) && isEmpty(v)) out[k] = {};
    else out[k] = union(expand(mine), expand(v));
  }
  return out;
}

/** `a` without the paths in `b`. */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(a)) {
    const other = b[k];
    if (other === undefined) out[k] = v;
    else if (isEmpty(v)) {
      if (!isEmpty(other) && other['.'] === undefined) out[k] = v;
    } else {
      const rest = difference(v, expand(other));
      if (!isEmpty(rest)) out[k] = rest;
    }
  }
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(a)) {
    const other = b[k];
    if (other === undefined) continue;
    if (isEmpty(v) && isEmpty(other)) {
      out[k] = {};
      continue;
    }
    const both = intersection(expand(v), expand(other));
    if (!isEmpty(both)) out[k] = both['.'] !== undefined && Object.keys(both).length === 1 ? {} : both;
  }
  return out;
}

/** Every leaf path (a field owned as a whole, or `.` of a list item). */
export function leaves(s: FieldSet, prefix: FieldPath = []): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [k, v] of Object.entries(s)) {
    const path = [...prefix, k];
    if (isEmpty(v)) out.push(path);
    else out.push(...leaves(v, path));
  }
  return out;
}

export function fromPaths(paths: FieldPath[]): FieldSet {
  const out: FieldSet = {};
  for (const p of paths) {
    let cur = out;
    for (const el of p) cur = cur[el] ??= {};
  }
  return out;
}

/**
 * Whether `path` must stay because of `s`: the path is a member, or (for a node) members live below
 * it, so removing the node would remove them.
 */
export function contains(s: FieldSet, path: FieldPath): boolean {
  const target = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
  let cur = s;
  for (const el of target) {
    const next = cur[el];
    if (next === undefined) return false;
    cur = next;
  }
  return true;
}

/** Finds the item of a keyed list matching a `k:{...}` element. */
export function findItem(list: unknown[], element: string): number {
  let want: Record<string, unknown>;
  try {
    want = JSON.parse(element.slice(2)) as Record<string, unknown>;
  } catch {
    return -1;
  }
  return list.findIndex((item) => isRecord(item) && Object.entries(want).every(([k, v]) => item[k] === v || (k === 'protocol' && item[k] === undefined && v === 'TCP')));
}

/** The value at a path, or undefined. `.` is the list item itself. */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let cur: unknown = obj;
  for (const el of path) {
    if (el === '.') continue;
    if (el.startsWith('f:')) cur = isRecord(cur) ? cur[el.slice(2)] : undefined;
    else if (el.startsWith('k:')) {
      const list: unknown[] = Array.isArray(cur) ? cur : [];
      const i = findItem(list, el);
      cur = i >= 0 ? list[i] : undefined;
    } else cur = undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Removes the field at a path (a `.` path removes the list item). No-op when absent. */
export function removeAt(obj: Record<string, unknown>, path: FieldPath): void {
  const target = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
  const parentPath = target.slice(0, -1);
  const last = target[target.length - 1];
  if (last === undefined) return;
  const parent = valueAt(obj, parentPath);
  if (last.startsWith('f:') && isRecord(parent)) delete parent[last.slice(2)];
  else if (last.startsWith('k:') && Array.isArray(parent)) {
    const i = findItem(parent, last);
    if (i >= 0) parent.splice(i, 1);
  }
}

/** `.spec.template.spec.containers[name="web"].image`, as conflict messages print paths. */
export function pathString(path: FieldPath): string {
  let out = '';
  for (const el of path) {
    if (el === '.') continue;
    if (el.startsWith('f:')) out += `.${el.slice(2)}`;
    else if (el.startsWith('k:')) {
      try {
        const keys = JSON.parse(el.slice(2)) as Record<string, unknown>;
        out += `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
      } catch {
        out += `[${el.slice(2)}]`;
      }
    } else out += `[${el}]`;
  }
  return out;
}
