/** Small helpers over object metadata that every simulated controller needs. */
import { randomBytes } from 'node:crypto';
import { isRecord, type KubeObject, type OwnerReference } from '../../../kube/object.js';

export function nameOf(obj: KubeObject): string {
  return obj.metadata.name ?? '';
}

export function namespaceOf(obj: KubeObject): string {
  return obj.metadata.namespace ?? '';
}

/** The owner with `controller: true`, as client-go's `GetControllerOf`. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return controllerOf(obj)?.uid === owner.metadata.uid;
}

export function controllerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: nameOf(owner), uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** Keys of the controlling owner when it is of `kind`. */
export function ownerKeyOf(kind: string) {
  return (obj: KubeObject): string[] => {
    const ref = controllerOf(obj);
    if (!ref || ref.kind !== kind) return [];
    return [obj.metadata.namespace ? `${obj.metadata.namespace}/${ref.name}` : ref.name];
  };
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function isTerminating(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined;
}

/** Kubernetes time: RFC 3339 in whole seconds, as the API server serializes metav1.Time. */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** The random suffix controllers give generated names (`web-7d4b9c8f6-x2kq9`). */
export function randomSuffix(length = 5): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => SAFE[b % SAFE.length]).join('');
}

/** FNV-1a over a stable JSON form, written in the "safe" alphabet: the pod-template-hash shape. */
export function stableHash(value: unknown): string {
  const text = stableJson(value);
  const fnv = (seed: number): number => {
    let h = seed;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h;
  };
  const encode = (n: number): string => {
    let out = '';
    for (let i = 0; i < 5; i++, n = Math.floor(n / SAFE.length)) out += SAFE[n % SAFE.length];
    return out;
  };
  return encode(fnv(0x811c9dc5)) + encode(fnv(0x5bd1e995));
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isRecord(value)) {
    // null and absent are the same field to the API (kubectl sends `creationTimestamp: null`).
    const keys = Object.keys(value).filter((k) => value[k] !== undefined && value[k] !== null).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function spec(obj: KubeObject): Record<string, unknown> {
  return record(obj.spec);
}

export function status(obj: KubeObject): Record<string, unknown> {
  return record(obj.status);
}

/** An intOrString that may be a percentage of `total` (maxSurge rounds up, maxUnavailable down). */
export function scaledValue(value: unknown, total: number, fallback: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const match = /^(\d+)%$/.exec(value);
    if (match) {
      const exact = (Number(match[1]) * total) / 100;
      return roundUp ? Math.ceil(exact) : Math.floor(exact);
    }
    const n = Number(value);
    if (Number.isInteger(n)) return n;
  }
  return fallback;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string | null;
}

/**
 * Sets a condition, keeping lastTransitionTime when the status did not change (what `kubectl wait`
 * and humans read) and refreshing lastUpdateTime only when `updated` is true.
 */
export function setCondition(conditions: Condition[], next: Condition, now: number, withUpdateTime = false): Condition[] {
  const old = conditions.find((c) => c.type === next.type);
  const time = kubeTime(now);
  const merged: Condition = { ...next, lastTransitionTime: old && old.status === next.status ? (old.lastTransitionTime ?? time) : time };
  if (withUpdateTime) {
    const same = old && old.status === next.status && old.reason === next.reason && old.message === next.message;
    merged.lastUpdateTime = same ? (old.lastUpdateTime ?? time) : time;
  }
  return [...conditions.filter((c) => c.type !== next.type), merged];
}

export function conditionsOf(obj: KubeObject): Condition[] {
  return records(status(obj).conditions) as unknown as Condition[];
}

export function findCondition(obj: KubeObject, type: string): Condition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}
