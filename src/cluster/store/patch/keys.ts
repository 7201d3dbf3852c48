/**
 * Merge keys of built-in list fields (the `patchMergeKey` / `listMapKeys` of the Kubernetes types),
 * shared by strategic merge patch and server-side apply. Keyed by field name: the names are specific
 * enough in practice (`containers` is always keyed by `name`), and it keeps the table small.
 */
import { isRecord } from '../../../kube/object.js';

const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  hostAliases: 'ip',
  ownerReferences: 'uid',
  resourceClaims: 'name',
  addresses: 'type',
  topologySpreadConstraints: 'topologyKey',
};

/** Primitive lists whose strategic merge unions instead of replacing (`patchStrategy: merge`). */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

/** The merge key of a list field, or undefined when the list is atomic (replaced as a whole). */
export function mergeKeyFor(field: string, ...lists: unknown[]): string | undefined {
  if (field === 'ports') {
    const items: unknown[] = lists.flatMap((l): unknown[] => (Array.isArray(l) ? (l as unknown[]) : []));
    return items.some((i) => isRecord(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  }
  return MERGE_KEYS[field];
}

export function isMergedPrimitiveList(field: string): boolean {
  return MERGED_PRIMITIVE_LISTS.has(field);
}
