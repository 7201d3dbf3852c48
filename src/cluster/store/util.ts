/** Small JSON-value helpers shared by the store's modules. Values are plain JSON (no Dates, no cycles). */
import { isRecord } from '../../kube/object.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function clone<T>(value: T): T {
  return structuredClone(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b) || Array.isArray(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Reads a dotted path (`.spec.replicas` or `spec.replicas`). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (part === '') continue;
    cur = isRecord(cur) ? cur[part] : undefined;
  }
  return cur;
}

/** Writes a dotted path, creating maps on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.').filter((p) => p !== '');
  let cur: Record<string, unknown> = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (isRecord(next)) cur = next;
    else {
      const created: Record<string, unknown> = {};
      cur[part] = created;
      cur = created;
    }
  }
  const last = parts[parts.length - 1];
  if (last !== undefined) cur[last] = value;
}

/** Child map of `obj`, created when absent. */
export function child(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = obj[key];
  if (isRecord(v)) return v;
  const created: Record<string, unknown> = {};
  obj[key] = created;
  return created;
}

export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}
