/**
 * Printers for the networking, policy, RBAC, autoscaling and config kinds, with the real columns
 * (pkg/printers/internalversion): endpoints, endpoint slices, ingresses and classes, network policies,
 * PDBs, roles and bindings, storage classes, service accounts, HPAs, quotas, limit ranges, priority
 * classes, controller revisions and replication controllers.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { AGE, type Printer, age, col, field } from './printers.js';

const str = (v: unknown, fallback = '<none>'): string => (typeof v === 'string' && v !== '' ? v : fallback);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const intOrStr = (v: unknown): string => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : 'N/A');
const createdAt = (o: KubeObject): string | null => o.metadata.creationTimestamp ?? null;
const CREATED_AT: Printer = { columns: [{ ...col('Created At', 'date'), format: '' }], cells: (o) => [createdAt(o)] };

/** Up to three items, then "+ N more...", as the real printers shorten lists. */
function shortList(items: string[], empty = '<none>'): string {
  if (items.length === 0) return empty;
  return items.length > 3 ? `${items.slice(0, 3).join(',')} + ${items.length - 3} more...` : items.join(',');
}

function endpointsCell(ep: KubeObject): string {
  const out: string[] = [];
  for (const subset of arr(ep.subsets)) {
    const ports = arr(field(subset, 'ports')).map((p) => field(p, 'port'));
    for (const a of arr(field(subset, 'addresses'))) {
      const ip = str(field(a, 'ip'), '');
      if (ports.length === 0) out.push(ip);
      for (const p of ports) out.push(`${ip}:${String(p)}`);
    }
  }
  return shortList(out);
}

function ingressHosts(ing: KubeObject): string {
  const hosts = arr(field(ing, 'spec', 'rules')).map((r) => str(field(r, 'host'), '*'));
  return shortList(hosts, '*');
}

function ingressAddress(ing: KubeObject): string {
  return arr(field(ing, 'status', 'loadBalancer', 'ingress')).map((i) => str(field(i, 'ip'), '') || str(field(i, 'hostname'), '')).filter((x) => x !== '').join(',');
}

function selectorText(sel: unknown): string {
  const labels = field(sel, 'matchLabels');
  const parts = isRecord(labels) ? Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`) : [];
  for (const e of arr(field(sel, 'matchExpressions'))) parts.push(`${str(field(e, 'key'), '')} ${str(field(e, 'operator'), '').toLowerCase()} (${arr(field(e, 'values')).join(',')})`);
  return parts.length > 0 ? parts.join(',') : '<none>';
}

function subjects(binding: KubeObject, kind: string): string {
  return arr(binding.subjects).filter((s) => field(s, 'kind') === kind).map((s) => (kind === 'ServiceAccount' ? `${str(field(s, 'namespace'), '')}/${str(field(s, 'name'), '')}` : str(field(s, 'name'), ''))).join(', ');
}

const BINDING: Printer = {
  columns: [col('Role'), AGE, col('Users', 'string', 1), col('Groups', 'string', 1), col('ServiceAccounts', 'string', 1)],
  cells: (b, now) => [`${str(field(b, 'roleRef', 'kind'), '')}/${str(field(b, 'roleRef', 'name'), '')}`, age(b, now), subjects(b, 'User'), subjects(b, 'Group'), subjects(b, 'ServiceAccount')],
};

function hpaTargets(hpa: KubeObject): string {
  const current = arr(field(hpa, 'status', 'currentMetrics'));
  const targets = arr(field(hpa, 'spec', 'metrics')).map((m, i) => {
    const target = field(m, 'resource', 'target', 'averageUtilization');
    const now = field(current[i], 'resource', 'current', 'averageUtilization');
    const name = str(field(m, 'resource', 'name'), 'cpu');
    return `${name}: ${typeof now === 'number' ? `${now}%` : '<unknown>'}/${typeof target === 'number' ? `${target}%` : '<none>'}`;
  });
  return targets.length > 0 ? targets.join(', ') : '<none>';
}

function quotaPairs(q: KubeObject, limits: boolean): string {
  const hard = field(q, 'status', 'hard');
  const used = field(q, 'status', 'used');
  if (!isRecord(hard)) return '';
  return Object.keys(hard)
    .filter((k) => k.startsWith('limits.') === limits && (limits || !k.startsWith('limits.')))
    .sort()
    .map((k) => `${k}: ${isRecord(used) ? str(used[k], '0') : '0'}/${str(hard[k], '')}`)
    .join(', ');
}

export const morePrinters: Record<string, Printer> = {
  '/endpoints': { columns: [col('Endpoints'), AGE], cells: (e, now) => [endpointsCell(e), age(e, now)] },
  'discovery.k8s.io/endpointslices': {
    columns: [col('AddressType'), col('Ports'), col('Endpoints'), AGE],
    cells: (s, now) => [
      str(s.addressType, ''),
      shortList(arr(s.ports).map((p) => { const port = field(p, 'port'); return typeof port === 'number' ? String(port) : ''; })),
      shortList(arr(s.endpoints).flatMap((e) => arr(field(e, 'addresses')).map(String))),
      age(s, now),
    ],
  },
  'networking.k8s.io/ingresses': {
    columns: [col('Class'), col('Hosts'), col('Address'), col('Ports'), AGE],
    cells: (i, now) => [str(field(i, 'spec', 'ingressClassName')), ingressHosts(i), ingressAddress(i), arr(field(i, 'spec', 'tls')).length > 0 ? '80, 443' : '80', age(i, now)],
  },
  'networking.k8s.io/ingressclasses': {
    columns: [col('Controller'), col('Parameters'), AGE],
    cells: (c, now) => [str(field(c, 'spec', 'controller'), ''), isRecord(field(c, 'spec', 'parameters')) ? `${str(field(c, 'spec', 'parameters', 'kind'), '')}/${str(field(c, 'spec', 'parameters', 'name'), '')}` : '<none>', age(c, now)],
  },
  'networking.k8s.io/networkpolicies': { columns: [col('Pod-Selector'), AGE], cells: (n, now) => [selectorText(field(n, 'spec', 'podSelector')), age(n, now)] },
  'policy/poddisruptionbudgets': {
    columns: [col('Min Available'), col('Max Unavailable'), col('Allowed Disruptions', 'integer'), AGE],
    cells: (p, now) => [intOrStr(field(p, 'spec', 'minAvailable')), intOrStr(field(p, 'spec', 'maxUnavailable')), Number(field(p, 'status', 'disruptionsAllowed') ?? 0), age(p, now)],
  },
  'rbac.authorization.k8s.io/roles': CREATED_AT,
  'rbac.authorization.k8s.io/clusterroles': CREATED_AT,
  'rbac.authorization.k8s.io/rolebindings': BINDING,
  'rbac.authorization.k8s.io/clusterrolebindings': BINDING,
  'storage.k8s.io/storageclasses': {
    columns: [col('Provisioner'), col('ReclaimPolicy'), col('VolumeBindingMode'), col('AllowVolumeExpansion', 'boolean'), AGE],
    cells: (s, now) => [str(s.provisioner, ''), str(s.reclaimPolicy, 'Delete'), str(s.volumeBindingMode, 'Immediate'), s.allowVolumeExpansion === true, age(s, now)],
  },
  '/serviceaccounts': { columns: [col('Secrets', 'integer'), AGE], cells: (s, now) => [arr(s.secrets).length, age(s, now)] },
  'autoscaling/horizontalpodautoscalers': {
    columns: [col('Reference'), col('Targets'), col('MinPods', 'integer'), col('MaxPods', 'integer'), col('Replicas', 'integer'), AGE],
    cells: (h, now) => [
      `${str(field(h, 'spec', 'scaleTargetRef', 'kind'), '')}/${str(field(h, 'spec', 'scaleTargetRef', 'name'), '')}`,
      hpaTargets(h), Number(field(h, 'spec', 'minReplicas') ?? 1), Number(field(h, 'spec', 'maxReplicas') ?? 0), Number(field(h, 'status', 'currentReplicas') ?? 0), age(h, now),
    ],
  },
  '/resourcequotas': { columns: [AGE, col('Request'), col('Limit')], cells: (q, now) => [age(q, now), quotaPairs(q, false), quotaPairs(q, true)] },
  '/limitranges': CREATED_AT,
  'scheduling.k8s.io/priorityclasses': {
    columns: [col('Value', 'integer'), col('Global-Default', 'boolean'), AGE, col('PreemptionPolicy')],
    cells: (p, now) => [Number(p.value ?? 0), p.globalDefault === true, age(p, now), str(p.preemptionPolicy, 'PreemptLowerPriority')],
  },
  'apps/controllerrevisions': {
    columns: [col('Controller'), col('Revision', 'integer'), AGE],
    cells: (r, now) => {
      const owner = (r.metadata.ownerReferences ?? []).find((o) => o.controller === true);
      return [owner ? `${owner.kind.toLowerCase()}.${owner.apiVersion.split('/')[0] ?? ''}/${owner.name}` : '<none>', Number(r.revision ?? 0), age(r, now)];
    },
  },
  '/replicationcontrollers': {
    columns: [col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), AGE],
    cells: (r, now) => [Number(field(r, 'spec', 'replicas') ?? 0), Number(field(r, 'status', 'replicas') ?? 0), Number(field(r, 'status', 'readyReplicas') ?? 0), age(r, now)],
  },
};
