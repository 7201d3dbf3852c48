/**
 * LimitRange, as the LimitRanger admission plugin applies it to a pod being created: each container
 * without a request or limit gets the namespace's `defaultRequest` / `default` (annotated
 * `kubernetes.io/limit-ranger`), then `min` and `max` are enforced (403 Forbidden with the real
 * message). LimitRange objects themselves are defaulted as the API does (default from max, default
 * request from default or min).
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { forbidden } from '../errors.js';
import type { ResourceType } from '../types.js';
import { records } from '../util.js';
import { formatQuantity, parseQuantity } from './quantity.js';

type Obj = Record<string, unknown>;
type Resources = Record<string, string>;
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});

/** SetDefaults_LimitRangeItem for Container items. */
export function defaultLimitRange(obj: KubeObject): void {
  for (const item of records(asObj(obj.spec).limits)) {
    if (item.type !== 'Container') continue;
    const def = { ...(asObj(item.default) as Resources) };
    const req = { ...(asObj(item.defaultRequest) as Resources) };
    for (const [k, v] of Object.entries(asObj(item.max) as Resources)) def[k] ??= v;
    for (const [k, v] of Object.entries(def)) req[k] ??= v;
    for (const [k, v] of Object.entries(asObj(item.min) as Resources)) req[k] ??= v;
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

/** Sets each missing resource from `defaults`, noting which it set. */
function fill(target: Resources, defaults: Resources, set: string[]): void {
  for (const [k, v] of Object.entries(defaults)) {
    if (target[k] !== undefined) continue;
    target[k] = v;
    set.push(k);
  }
}

function containerItems(core: Core, namespace: string): Obj[] {
  const ranges = [...(core.collections.get('/limitranges')?.get(namespace)?.values() ?? [])];
  return ranges.flatMap((r) => records(asObj(r.spec).limits)).filter((i) => i.type === 'Container');
}

/** Mutates the pod's containers with defaults, then refuses it when a container breaks min or max. */
export function admitPodLimits(core: Core, type: ResourceType, pod: KubeObject): void {
  const items = containerItems(core, pod.metadata.namespace ?? '');
  if (items.length === 0) return;
  const spec = asObj(pod.spec);
  const containers = [...records(spec.initContainers), ...records(spec.containers)];
  const notes: string[] = [];
  for (const c of containers) {
    const resources = asObj(c.resources);
    const requests = { ...(asObj(resources.requests) as Resources) };
    const limits = { ...(asObj(resources.limits) as Resources) };
    const setRequests: string[] = [];
    const setLimits: string[] = [];
    for (const item of items) {
      fill(requests, asObj(item.defaultRequest) as Resources, setRequests);
      fill(limits, asObj(item.default) as Resources, setLimits);
    }
    if (setRequests.length + setLimits.length === 0) continue;
    c.resources = { ...resources, ...(Object.keys(limits).length > 0 ? { limits } : {}), ...(Object.keys(requests).length > 0 ? { requests } : {}) };
    if (setRequests.length > 0) notes.push(`${setRequests.join(', ')} request for container ${String(c.name)}`);
    if (setLimits.length > 0) notes.push(`${setLimits.join(', ')} limit for container ${String(c.name)}`);
  }
  if (notes.length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), 'kubernetes.io/limit-ranger': `LimitRanger plugin set: ${notes.join('; ')}` };
  const problems: string[] = [];
  for (const c of containers) {
    const resources = asObj(c.resources);
    const requests = asObj(resources.requests);
    const limits = asObj(resources.limits);
    for (const item of items) {
      for (const [k, v] of Object.entries(asObj(item.min))) {
        const min = parseQuantity(v) ?? 0;
        const req = parseQuantity(requests[k]);
        if (req === undefined) problems.push(`minimum ${k} usage per Container is ${String(v)}.  No request is specified`);
        else if (req < min) problems.push(`minimum ${k} usage per Container is ${String(v)}, but request is ${formatQuantity(req, k)}`);
      }
      for (const [k, v] of Object.entries(asObj(item.max))) {
        const max = parseQuantity(v) ?? 0;
        const lim = parseQuantity(limits[k]);
        if (lim === undefined) problems.push(`maximum ${k} usage per Container is ${String(v)}.  No limit is specified`);
        else if (lim > max) problems.push(`maximum ${k} usage per Container is ${String(v)}, but limit is ${formatQuantity(lim, k)}`);
      }
    }
  }
  if (problems.length > 0) throw forbidden(type, pod.metadata.name ?? '', problems.join(', '));
}
