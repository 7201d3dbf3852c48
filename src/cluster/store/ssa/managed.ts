/**
 * managedFields bookkeeping: which parts of an object count as fields, and how an `Update`
 * operation (create, PUT, non-apply patches) moves ownership: the updater owns what it changed;
 * other managers lose those fields; fields that disappeared belong to no one.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import type { ResourceType } from '../types.js';
import { apiVersionOf } from '../types.js';
import { deepEqual } from '../util.js';
import { difference, fromPaths, isEmpty, leaves, setOf, union, valueAt, type FieldSet } from './fieldset.js';

const SERVER_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName'];

/** The part of an object whose fields a write to `subresource` manages, as a plain map. */
export function fieldSource(type: ResourceType, obj: Record<string, unknown>, subresource: string | undefined): Record<string, unknown> {
  if (subresource === 'status') return obj.status === undefined ? {} : { status: obj.status };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && type.subresources.status) continue;
    if (k === 'metadata' && isRecord(v)) {
      const meta: Record<string, unknown> = {};
      for (const [mk, mv] of Object.entries(v)) if (!SERVER_METADATA.includes(mk) && mv !== undefined) meta[mk] = mv;
      if (Object.keys(meta).length > 0) out.metadata = meta;
      continue;
    }
    out[k] = v;
  }
  return out;
}

export function fieldSet(type: ResourceType, obj: Record<string, unknown>, subresource: string | undefined): FieldSet {
  return setOf(fieldSource(type, obj, subresource), { custom: type.schema !== undefined }, type.schema);
}

export function entrySet(e: ManagedFieldsEntry): FieldSet {
  return (isRecord(e.fieldsV1) ? e.fieldsV1 : {}) as FieldSet;
}

export function sameIdentity(e: ManagedFieldsEntry, manager: string, operation: 'Apply' | 'Update', subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? undefined) === subresource;
}

export function makeEntry(core: Core, type: ResourceType, manager: string, operation: 'Apply' | 'Update', set: FieldSet, subresource: string | undefined): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = { manager, operation, apiVersion: apiVersionOf(type), time: core.timestamp(), fieldsType: 'FieldsV1', fieldsV1: set };
  if (subresource !== undefined) e.subresource = subresource;
  return e;
}

/** Leaves of `next` whose value differs from `old` (new list items count through their `.`). */
function changedSet(nextSet: FieldSet, oldObj: Record<string, unknown>, nextObj: Record<string, unknown>): FieldSet {
  // A list item's `.` changes only when the item appears; edits inside it are owned field by field.
  const changed = leaves(nextSet).filter((p) => (p[p.length - 1] === '.' ? valueAt(oldObj, p) === undefined : !deepEqual(valueAt(oldObj, p), valueAt(nextObj, p))));
  return fromPaths(changed);
}

export function recordUpdate(core: Core, type: ResourceType, old: KubeObject | undefined, next: KubeObject, manager: string, subresource: string | undefined): ManagedFieldsEntry[] {
  const nextObj = fieldSource(type, next, subresource);
  const nextSet = fieldSet(type, next, subresource);
  if (!old) return isEmpty(nextSet) ? [] : [makeEntry(core, type, manager, 'Update', nextSet, subresource)];
  const oldObj = fieldSource(type, old, subresource);
  const changed = changedSet(nextSet, oldObj, nextObj);
  const removed = difference(fieldSet(type, old, subresource), nextSet);
  const out: ManagedFieldsEntry[] = [];
  let mine = false;
  for (const e of old.metadata.managedFields ?? []) {
    const before = entrySet(e);
    if (sameIdentity(e, manager, 'Update', subresource)) {
      mine = true;
      const after = difference(union(before, changed), removed);
      if (!isEmpty(after)) out.push(deepEqual(after, before) ? e : { ...e, fieldsV1: after, time: core.timestamp() });
      continue;
    }
    // Another subresource's manager keeps its fields: this write could not touch them.
    if ((e.subresource ?? undefined) !== subresource) {
      out.push(e);
      continue;
    }
    const after = difference(difference(before, changed), removed);
    if (!isEmpty(after)) out.push(deepEqual(after, before) ? e : { ...e, fieldsV1: after });
  }
  if (!mine && !isEmpty(changed)) out.push(makeEntry(core, type, manager, 'Update', changed, subresource));
  return out;
}
