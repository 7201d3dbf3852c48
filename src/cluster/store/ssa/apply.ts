/**
 * Server-side apply (`application/apply-patch+yaml`): the applied configuration is merged into the
 * live object; the applier owns exactly the fields it applied; a field another manager owns with a
 * different value is a 409 conflict unless `force`; fields the applier applied before and no longer
 * applies are removed when no other manager owns them.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { ApiError, type Cause } from '../errors.js';
import type { ResourceType } from '../types.js';
import { clone, deepEqual } from '../util.js';
import { childSchema, contains, difference, itemsSchema, listKeys, type Schema, type SetOptions, intersection, isEmpty, leaves, pathString, removeAt, union, valueAt, type FieldPath, type FieldSet } from './fieldset.js';
import { entrySet, fieldSet, makeEntry, sameIdentity } from './managed.js';

export interface ApplyResult {
  /** The merged object (live with the applied configuration), before defaulting and validation. */
  object: KubeObject;
  managedFields: ManagedFieldsEntry[];
}

interface Conflict {
  entry: number;
  manager: string;
  apiVersion: string;
  path: FieldPath;
}

function conflictError(type: ResourceType, name: string, conflicts: Conflict[]): ApiError {
  const causes: Cause[] = conflicts.map((c) => ({
    type: 'FieldManagerConflict',
    message: `conflict with "${c.manager}" using ${c.apiVersion}`,
    field: pathString(c.path),
  }));
  const lines = conflicts.map((c) => `conflict with "${c.manager}" using ${c.apiVersion}: ${pathString(c.path)}`);
  const n = conflicts.length;
  const message = n === 1 ? `Apply failed with 1 conflict: ${lines[0] ?? ''}` : `Apply failed with ${n} conflicts: ${lines.join('\n')}`;
  const details: NonNullable<ApiError['status']['details']> = { name, kind: type.resource, causes };
  if (type.group !== '') details.group = type.group;
  return new ApiError(409, 'Conflict', message, details);
}

/** Merges the applied configuration into the live value: maps recursively, keyed lists item by item. */
function mergeApplied(live: unknown, applied: unknown, field: string, opts: SetOptions, schema: Schema): unknown {
  if (isRecord(applied)) {
    const out: Record<string, unknown> = isRecord(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = mergeApplied(out[k], v, k, opts, childSchema(schema, k));
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const keys = listKeys(field, [...(live as unknown[]), ...(applied as unknown[])], opts, schema);
    if (keys !== undefined) {
      const out: unknown[] = [...(live as unknown[])];
      const same = (a: unknown, b: Record<string, unknown>): boolean => isRecord(a) && keys.every((k) => deepEqual(a[k], b[k]));
      for (const item of applied as Record<string, unknown>[]) {
        const at = out.findIndex((o) => same(o, item));
        if (at >= 0) out[at] = mergeApplied(out[at], item, field, opts, itemsSchema(schema));
        else out.push(item);
      }
      return out;
    }
  }
  return applied;
}

export function applyConfiguration(core: Core, type: ResourceType, live: KubeObject | undefined, applied: KubeObject, manager: string, force: boolean, subresource: string | undefined): ApplyResult {
  const appliedSet = fieldSet(type, applied, subresource);
  const entries = (live?.metadata.managedFields ?? []).map((e) => ({ ...e }));
  const sets: FieldSet[] = entries.map(entrySet);
  const own = entries.findIndex((e) => sameIdentity(e, manager, 'Apply', subresource));
  const conflicts: Conflict[] = [];
  entries.forEach((e, i) => {
    if (i === own || (e.subresource ?? undefined) !== subresource) return;
    for (const path of leaves(intersection(sets[i] ?? {}, appliedSet))) {
      // `.` is a list item's existence: both want it, no value to disagree on.
      if (path[path.length - 1] === '.') continue;
      if (!deepEqual(valueAt(applied, path), valueAt(live, path))) conflicts.push({ entry: i, manager: e.manager ?? '', apiVersion: e.apiVersion ?? '', path });
    }
  });
  if (conflicts.length > 0 && !force) throw conflictError(type, applied.metadata.name ?? '', conflicts);
  for (const c of conflicts) sets[c.entry] = difference(sets[c.entry] ?? {}, fromPath(c.path));

  const merged: KubeObject = clone(live ?? applied);
  if (live) {
    const previous = own >= 0 ? sets[own] ?? {} : {};
    const others = sets.reduce<FieldSet>((acc, s, i) => (i === own ? acc : union(acc, s)), {});
    const dropped = leaves(difference(previous, appliedSet)).filter((p) => !contains(others, p));
    // Deepest first, so removing a list item does not shift the paths of its siblings' fields.
    for (const p of dropped.sort((a, b) => b.length - a.length)) removeAt(merged, p);
  }
  const object = (live ? mergeApplied(merged, applied, '', { custom: type.schema !== undefined }, type.schema) : merged) as KubeObject;

  const out: ManagedFieldsEntry[] = [];
  entries.forEach((e, i) => {
    if (i === own) return;
    const s = sets[i] ?? {};
    if (!isEmpty(s)) out.push(deepEqual(s, entrySet(e)) ? e : { ...e, fieldsV1: s });
  });
  const previousEntry = own >= 0 ? entries[own] : undefined;
  if (!isEmpty(appliedSet)) {
    const unchanged = previousEntry && deepEqual(entrySet(previousEntry), appliedSet);
    const mine = unchanged ? previousEntry : makeEntry(core, type, manager, 'Apply', appliedSet, subresource);
    if (own >= 0) out.splice(Math.min(own, out.length), 0, mine);
    else out.push(mine);
  }
  return { object, managedFields: out };
}

function fromPath(path: FieldPath): FieldSet {
  const root: FieldSet = {};
  let cur = root;
  for (const el of path) cur = cur[el] = {};
  return root;
}
