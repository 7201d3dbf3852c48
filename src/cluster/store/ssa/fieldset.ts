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
  /** Custom resources have no built-in list semantics: every list is atomic. */
  atomicLists: boolean;
}

function itemKey(item: Record<string, unknown>, key: string): string {
  const keys: Record<string, unknown> = { [key]: item[key] };
  // Ports are identified by number and protocol in real managedFields.
  if ((key === 'containerPort' || key === 'port') && item.protocol !== undefined) keys.protocol = item.protocol;
  const sorted = Object.keys(keys).sort();
  return `k:${JSON.stringify(Object.fromEntries(sorted.map((k) => [k, keys[k]])))}`;
}

function listKey(field: string, list: unknown[], opts: SetOptions): string | undefined {
  if (opts.atomicLists || !list.every(isRecord)) return undefined;
  const key = mergeKeyFor(field, list);
  return key !== undefined && list.every((i) => isRecord(i) && i[key] !== undefined) ? key : undefined;
}

function valueSet(field: string, value: unknown, opts: SetOptions): FieldSet {
  if (isRecord(value)) return setOf(value, opts);
  if (Array.isArray(value)) {
    const key = listKey(field, value, opts);
    if (key === undefined) return {};
    const out: FieldSet = {};
    for (const item of value as Record<string, unknown>[]) out[itemKey(item, key)] = { '.': {}, ...setOf(item, opts) };
    return out;
  }
  return {};
}

/** The set of fields present in a map. */
export function setOf(obj: Record<string, unknown>, opts: SetOptions): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[`f:${k}`] = valueSet(k, v, opts);
  return out;
}

export function isEmpty(s: FieldSet): boolean {
  for (const _ in s) return false;
  return true;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? union(out[k] ?? {}, v) : v;
  return out;
}

/** `a` without the fields `b` owns. */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(a)) {
    const other = b[k];
    if (other === undefined) out[k] = v;
    else if (isEmpty(v)) continue; // a leaf in both: owned by b
    else if (isEmpty(other)) continue; // b owns the whole field
    else {
      const rest = difference(v, other);
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
    if (isEmpty(v) || isEmpty(other)) {
      if (isEmpty(v) && isEmpty(other)) out[k] = {};
      continue;
    }
    const both = intersection(v, other);
    if (!isEmpty(both)) out[k] = both;
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

export function contains(s: FieldSet, path: FieldPath): boolean {
  let cur = s;
  for (const el of path) {
    const next = cur[el];
    if (next === undefined) return false;
    if (isEmpty(next)) return true; // owned as a whole here (the path itself or an ancestor)
    cur = next;
  }
  return true; // an intermediate node: someone owns fields below it
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
