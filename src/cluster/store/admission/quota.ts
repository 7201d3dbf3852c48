/**
 * ResourceQuota, enforced as the ResourceQuota admission plugin does: a create that would take any
 * tracked usage past `spec.hard` is 403 Forbidden (`exceeded quota: q, requested: pods=1, used:
 * pods=10, limited: pods=10`), and a pod without the requests or limits a quota tracks is refused
 * (`failed quota: q: must specify limits.cpu for: web`). `status.hard` and `status.used` follow every
 * change in a namespace with quotas, as the resourcequota controller keeps them. Counted: pods (not
 * finished), services (and `.loadbalancers`, `.nodeports`), configmaps, secrets, persistentvolumeclaims
 * (and `requests.storage`), replicationcontrollers, resourcequotas, `count/<resource>[.<group>]`, and
 * pod `requests.cpu|memory` (also plain `cpu|memory`) and `limits.cpu|memory`. Scopes are not modelled.
 */
import type { KubeObject } from '../../../kube/object.js';
import { isRecord } from '../../../kube/object.js';
import type { Core } from '../core.js';
import { forbidden } from '../errors.js';
import type { ResourceType } from '../types.js';
import { deepEqual, records } from '../util.js';
import { formatQuantity, parseQuantity } from './quantity.js';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (isRecord(v) ? v : {});
const QUOTAS = '/resourcequotas';

const COUNTED: Record<string, string> = {
  '/pods': 'pods', '/services': 'services', '/configmaps': 'configmaps', '/secrets': 'secrets',
  '/persistentvolumeclaims': 'persistentvolumeclaims', '/replicationcontrollers': 'replicationcontrollers', '/resourcequotas': 'resourcequotas',
};

function countName(key: string): string {
  const [group, resource] = key.split('/');
  return `count/${resource ?? ''}${group ? `.${group}` : ''}`;
}

function podActive(pod: KubeObject): boolean {
  const phase = asObj(pod.status).phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function podSum(pod: KubeObject, field: 'requests' | 'limits', resource: string): { total: number; missing: string[] } {
  let total = 0;
  const missing: string[] = [];
  for (const c of records(asObj(pod.spec).containers)) {
    const v = parseQuantity(asObj(asObj(c.resources)[field])[resource]);
    if (v === undefined) missing.push(String(c.name));
    else total += v;
  }
  return { total, missing };
}

/** What one object adds to each tracked resource name. */
function usageOf(key: string, obj: KubeObject): Record<string, number> {
  const out: Record<string, number> = { [countName(key)]: 1 };
  if (key === '/pods') {
    if (!podActive(obj)) return {};
    out.pods = 1;
    for (const r of ['cpu', 'memory']) {
      out[`requests.${r}`] = podSum(obj, 'requests', r).total;
      out[r] = out[`requests.${r}`] ?? 0;
      out[`limits.${r}`] = podSum(obj, 'limits', r).total;
    }
    return out;
  }
  const counted = COUNTED[key];
  if (counted) out[counted] = 1;
  if (key === '/services') {
    const spec = asObj(obj.spec);
    if (spec.type === 'LoadBalancer') out['services.loadbalancers'] = 1;
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') out['services.nodeports'] = records(spec.ports).length;
  }
  if (key === '/persistentvolumeclaims') out['requests.storage'] = parseQuantity(asObj(asObj(asObj(obj.spec).resources).requests).storage) ?? 0;
  return out;
}

/** The key of each tracked resource name: `pods` -> `/pods`, `count/deployments.apps` -> `apps/deployments`. */
function keysTracked(hard: Obj): Set<string> {
  const keys = new Set<string>();
  for (const name of Object.keys(hard)) {
    if (name.startsWith('count/')) {
      const [resource = '', ...group] = name.slice(6).split('.');
      keys.add(`${group.join('.')}/${resource}`);
    } else if (/^(requests\.|limits\.)?(cpu|memory)$/.test(name)) keys.add('/pods');
    else if (name === 'requests.storage') keys.add('/persistentvolumeclaims');
    else if (name.startsWith('services.')) keys.add('/services');
    else for (const [key, counted] of Object.entries(COUNTED)) if (counted === name) keys.add(key);
  }
  return keys;
}

function usedIn(core: Core, namespace: string, hard: Obj): Record<string, number> {
  const used: Record<string, number> = Object.fromEntries(Object.keys(hard).map((k) => [k, 0]));
  for (const key of keysTracked(hard)) {
    for (const obj of core.collections.get(key)?.get(namespace)?.values() ?? []) {
      for (const [name, n] of Object.entries(usageOf(key, obj))) if (name in used) used[name] = (used[name] ?? 0) + n;
    }
  }
  return used;
}

function quotasIn(core: Core, namespace: string): KubeObject[] {
  const bucket = core.collections.get(QUOTAS)?.get(namespace);
  return bucket ? [...bucket.values()] : [];
}

/** Refuses a create that would exceed a quota of its namespace. */
export function admitQuota(core: Core, type: ResourceType, obj: KubeObject): void {
  const namespace = obj.metadata.namespace ?? '';
  const quotas = quotasIn(core, namespace);
  if (quotas.length === 0) return;
  const key = `${type.group}/${type.resource}`;
  const delta = usageOf(key, obj);
  const name = obj.metadata.name ?? '';
  for (const quota of quotas) {
    const hard = asObj(asObj(quota.spec).hard);
    if (!keysTracked(hard).has(key)) continue;
    if (key === '/pods' && podActive(obj)) {
      const missing: string[] = [];
      for (const r of Object.keys(hard).filter((h) => /^(requests\.|limits\.)?(cpu|memory)$/.test(h)).sort()) {
        const [field, resource] = r.includes('.') ? (r.split('.') as ['requests' | 'limits', string]) : (['requests', r] as const);
        const absent = podSum(obj, field, resource).missing;
        if (absent.length > 0) missing.push(`${r} for: ${absent.join(',')}`);
      }
      if (missing.length > 0) throw forbidden(type, name, `failed quota: ${quota.metadata.name ?? ''}: must specify ${missing.join('; ')}`);
    }
    const used = usedIn(core, namespace, hard);
    const over = Object.keys(hard).filter((r) => (delta[r] ?? 0) > 0 && (used[r] ?? 0) + (delta[r] ?? 0) > (parseQuantity(hard[r]) ?? 0)).sort();
    if (over.length === 0) continue;
    const list = (values: (r: string) => string): string => over.map((r) => `${r}=${values(r)}`).join(',');
    throw forbidden(type, name, `exceeded quota: ${quota.metadata.name ?? ''}, requested: ${list((r) => formatQuantity(delta[r] ?? 0, r))}, used: ${list((r) => formatQuantity(used[r] ?? 0, r))}, limited: ${list((r) => String(hard[r]))}`);
  }
}

/** Keeps `status.hard` and `status.used` of a namespace's quotas current after a change there. */
export function refreshQuotas(core: Core, key: string, namespace: string): void {
  if (namespace === '') return;
  for (const quota of quotasIn(core, namespace)) {
    if (quota.metadata.deletionTimestamp !== undefined) continue;
    const hard = asObj(asObj(quota.spec).hard);
    if (key !== QUOTAS && !keysTracked(hard).has(key)) continue;
    const used = usedIn(core, namespace, hard);
    const status = { hard, used: Object.fromEntries(Object.entries(used).map(([r, n]) => [r, formatQuantity(n, r)])) };
    if (deepEqual(quota.status, status)) continue;
    core.commit(QUOTAS, 'MODIFIED', { ...quota, status }, quota);
  }
}
