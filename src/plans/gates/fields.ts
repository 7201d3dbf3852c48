/** Typed reads of the loosely typed parts of objects (spec, status), tolerant of absent fields. */
import { isRecord, type KubeObject } from '../../kube/object.js';

/** The value at a dotted path such as `status.loadBalancer.ingress`. */
export function at(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function num(obj: unknown, path: string, fallback = 0): number {
  const v = at(obj, path);
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function str(obj: unknown, path: string): string | undefined {
  const v = at(obj, path);
  return typeof v === 'string' ? v : undefined;
}

export function list(obj: unknown, path: string): unknown[] {
  const v = at(obj, path);
  return Array.isArray(v) ? (v as unknown[]) : [];
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export function conditions(obj: KubeObject): Condition[] {
  const out: Condition[] = [];
  for (const c of list(obj, 'status.conditions')) {
    if (!isRecord(c) || typeof c.type !== 'string' || typeof c.status !== 'string') continue;
    const cond: Condition = { type: c.type, status: c.status };
    if (typeof c.reason === 'string') cond.reason = c.reason;
    if (typeof c.message === 'string') cond.message = c.message;
    if (typeof c.observedGeneration === 'number') cond.observedGeneration = c.observedGeneration;
    if (typeof c.lastTransitionTime === 'string') cond.lastTransitionTime = c.lastTransitionTime;
    out.push(cond);
  }
  return out;
}

export function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

export function isTrue(obj: KubeObject, type: string): boolean {
  return condition(obj, type)?.status === 'True';
}

/** " (reason: message)" for a condition, or '' when it says nothing. */
export function why(c: Condition | undefined): string {
  if (!c) return '';
  const text = [c.reason, c.message].filter((t): t is string => typeof t === 'string' && t !== '').join(': ');
  return text === '' ? '' : ` (${text})`;
}

/**
 * `undefined` when the controller has seen the latest spec; otherwise a waiting message. Objects
 * without status.observedGeneration are not judged on it (many kinds never report one).
 */
export function staleGeneration(obj: KubeObject): string | undefined {
  const observed = at(obj, 'status.observedGeneration');
  const generation = obj.metadata.generation;
  if (typeof observed !== 'number' || typeof generation !== 'number' || observed >= generation) return undefined;
  return `waiting for the controller to observe generation ${generation} (observed ${observed})`;
}

/** Like staleGeneration, but a missing observedGeneration also waits (workload controllers always set it). */
export function unobserved(obj: KubeObject): string | undefined {
  const observed = at(obj, 'status.observedGeneration');
  const generation = obj.metadata.generation ?? 1;
  if (typeof observed !== 'number') return 'waiting for the controller to observe the object';
  return observed >= generation ? undefined : `waiting for the controller to observe generation ${generation} (observed ${observed})`;
}
