/**
 * Strategic merge patch for built-in kinds, as kubectl sends it (client-side apply, `set image`,
 * `patch`, `rollout restart`): lists with a merge key merge item by item, `null` deletes, and the
 * directives `$patch: replace|delete|merge`, `$setElementOrder/<list>`, `$retainKeys` and
 * `$deleteFromPrimitiveList/<list>` are honoured. Lists without a merge key are replaced.
 */
import { isRecord } from '../../../kube/object.js';
import { badRequest } from '../errors.js';
import { deepEqual } from '../util.js';
import { isMergedPrimitiveList, mergeKeyFor } from './keys.js';

const ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function isDirective(key: string): boolean {
  return key === '$patch' || key === '$retainKeys' || key.startsWith(ORDER) || key.startsWith(DELETE_FROM);
}

/** A patch value with its directives removed, for places where it replaces rather than merges. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(isRecord(v) && v.$patch !== undefined && Object.keys(v).length === 1)).map(strip);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!isDirective(k) && v !== null) out[k] = strip(v);
  return out;
}

function sameItem(a: unknown, b: unknown, key: string | undefined): boolean {
  if (key !== undefined && isRecord(a) && isRecord(b)) return a[key] !== undefined && deepEqual(a[key], b[key]);
  return deepEqual(a, b);
}

function mergeList(field: string, original: unknown, patch: unknown[]): unknown[] {
  const orig: unknown[] = Array.isArray(original) ? (original as unknown[]) : [];
  if (patch.some((p) => isRecord(p) && p.$patch === 'replace')) return strip(patch) as unknown[];
  const key = mergeKeyFor(field, orig, patch);
  const records = patch.every(isRecord) && orig.every(isRecord);
  if (key !== undefined && records) {
    const out: unknown[] = [...orig];
    for (const p of patch) {
      const at = out.findIndex((o) => sameItem(o, p, key));
      if (isRecord(p) && p.$patch === 'delete') {
        if (at >= 0) out.splice(at, 1);
      } else if (at >= 0) {
        out[at] = strategicMerge(out[at], p);
      } else {
        out.push(strip(p));
      }
    }
    return out;
  }
  if (isMergedPrimitiveList(field)) return [...orig, ...patch.filter((p) => !orig.some((o) => deepEqual(o, p)))];
  return strip(patch) as unknown[];
}

function reorder(field: string, list: unknown, order: unknown): unknown {
  if (!Array.isArray(list) || !Array.isArray(order)) return list;
  const key = mergeKeyFor(field, list, order);
  const placed: unknown[] = [];
  const rest: unknown[] = [...(list as unknown[])];
  for (const o of order as unknown[]) {
    const at = rest.findIndex((item) => sameItem(item, o, key));
    if (at >= 0) placed.push(...rest.splice(at, 1));
  }
  return [...placed, ...rest];
}

/** Returns the patched value; `undefined` means the patch deleted it (`$patch: delete`). */
export function strategicMerge(original: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  if (patch.$patch === 'replace') return strip(patch);
  if (patch.$patch === 'delete') return undefined;
  if (patch.$patch !== undefined && patch.$patch !== 'merge') throw badRequest(`unknown patch type: ${JSON.stringify(patch.$patch)} found in map`);
  const out: Record<string, unknown> = isRecord(original) ? { ...original } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_FROM)) {
      const field = k.slice(DELETE_FROM.length);
      const drop = Array.isArray(v) ? v : [];
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((x) => !drop.some((d) => deepEqual(d, x)));
    } else if (isDirective(k)) {
      continue;
    } else if (v === null) {
      delete out[k];
    } else if (Array.isArray(v)) {
      out[k] = mergeList(k, out[k], v);
    } else if (isRecord(v)) {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = v;
    }
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(ORDER)) {
      const field = k.slice(ORDER.length);
      if (out[field] !== undefined) out[field] = reorder(field, out[field], v);
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}
