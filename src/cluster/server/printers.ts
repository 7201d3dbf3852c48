/**
 * Per-kind columns for `kubectl get`, the ones the real API server's printers produce (pkg/printers/
 * internalversion). Each printer is a column list plus a pure function from object to cells; the
 * Name column and the row object are added by tables.ts.
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { humanDuration } from './duration.js';

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

export type Cell = string | number | boolean | null;

export interface Printer {
  columns: ColumnDefinition[];
  /** Events list the name last and only with -o wide (priority 1), as the real printer does. */
  nameLast?: boolean;
  cells(obj: KubeObject, now: number): Cell[];
}

export const col = (name: string, type: ColumnDefinition['type'] = 'string', priority = 0): ColumnDefinition => ({ name, type, format: '', description: name, priority });
export const AGE = col('Age');

/** Reads a nested field without trusting the object's shape. */
export function field(obj: unknown, ...path: (string | number)[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (typeof key === 'number') cur = Array.isArray(cur) ? (cur[key] as unknown) : undefined;
    else cur = isRecord(cur) ? cur[key] : undefined;
  }
  return cur;
}
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown, fallback = '<none>'): string => (typeof v === 'string' && v !== '' ? v : fallback);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const count = (v: unknown): number => (isRecord(v) ? Object.keys(v).length : 0);

export function age(obj: KubeObject, now: number): string {
  const ts = obj.metadata.creationTimestamp;
  return ts ? humanDuration(now - Date.parse(ts)) : '<unknown>';
}

function podStatus(pod: KubeObject): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  let reason = str(field(pod, 'status', 'reason'), '') || str(field(pod, 'status', 'phase'), 'Pending');
  for (const cs of arr(field(pod, 'status', 'containerStatuses'))) {
    const waiting = str(field(cs, 'state', 'waiting', 'reason'), '');
    const terminated = str(field(cs, 'state', 'terminated', 'reason'), '');
    if (waiting) reason = waiting;
    else if (terminated) reason = terminated;
  }
  return reason;
}

function jobStatus(job: KubeObject): string {
  const conditions = arr(field(job, 'status', 'conditions'));
  const has = (type: string): boolean => conditions.some((c) => field(c, 'type') === type && field(c, 'status') === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

function jobDuration(job: KubeObject, now: number): string {
  const start = field(job, 'status', 'startTime');
  if (typeof start !== 'string') return '';
  const end = field(job, 'status', 'completionTime');
  return humanDuration((typeof end === 'string' ? Date.parse(end) : now) - Date.parse(start));
}

function servicePorts(svc: KubeObject): string {
  const ports = arr(field(svc, 'spec', 'ports')).map((p) => {
    const nodePort = num(field(p, 'nodePort'));
    return `${num(field(p, 'port'))}${nodePort ? `:${nodePort}` : ''}/${str(field(p, 'protocol'), 'TCP')}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

function externalIp(svc: KubeObject): string {
  const external = arr(field(svc, 'spec', 'externalIPs')).filter((x): x is string => typeof x === 'string');
  if (field(svc, 'spec', 'type') === 'LoadBalancer') {
    const ingress = arr(field(svc, 'status', 'loadBalancer', 'ingress')).map((i) => str(field(i, 'ip'), '') || str(field(i, 'hostname'), ''));
    const all = [...ingress, ...external].filter((x) => x !== '');
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  if (field(svc, 'spec', 'type') === 'ExternalName') return str(field(svc, 'spec', 'externalName'));
  return external.length > 0 ? external.join(',') : '<none>';
}

const ACCESS_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

function containerCells(podSpec: unknown): [string, string] {
  const containers = arr(field(podSpec, 'containers'));
  return [containers.map((c) => str(field(c, 'name'), '')).join(','), containers.map((c) => str(field(c, 'image'), '')).join(',')];
}

function selectorString(sel: unknown): string {
  const labels = field(sel, 'matchLabels');
  if (!isRecord(labels) || Object.keys(labels).length === 0) return '<none>';
  return Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`).join(',');
}

/** Printers by `group/resource` ('' group for core). */
export const printers: Record<string, Printer> = {
  '/pods': {
    columns: [col('Ready'), col('Status'), col('Restarts'), AGE, col('IP', 'string', 1), col('Node', 'string', 1)],
    cells: (p, now) => {
      const statuses = arr(field(p, 'status', 'containerStatuses'));
      const total = arr(field(p, 'spec', 'containers')).length;
      const ready = statuses.filter((c) => field(c, 'ready') === true).length;
      const restarts = statuses.reduce<number>((sum, c) => sum + num(field(c, 'restartCount')), 0);
      return [`${ready}/${total}`, podStatus(p), String(restarts), age(p, now), str(field(p, 'status', 'podIP')), str(field(p, 'spec', 'nodeName'))];
    },
  },
  'apps/deployments': {
    columns: [col('Ready'), col('Up-to-date', 'integer'), col('Available', 'integer'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1), col('Selector', 'string', 1)],
    cells: (d, now) => [
      `${num(field(d, 'status', 'readyReplicas'))}/${num(field(d, 'spec', 'replicas'))}`,
      num(field(d, 'status', 'updatedReplicas')), num(field(d, 'status', 'availableReplicas')), age(d, now),
      ...containerCells(field(d, 'spec', 'template', 'spec')), selectorString(field(d, 'spec', 'selector')),
    ],
  },
  'apps/statefulsets': {
    columns: [col('Ready'), AGE, col('Containers', 'string', 1), col('Images', 'string', 1)],
    cells: (s, now) => [`${num(field(s, 'status', 'readyReplicas'))}/${num(field(s, 'spec', 'replicas'))}`, age(s, now), ...containerCells(field(s, 'spec', 'template', 'spec'))],
  },
  'apps/daemonsets': {
    columns: ['Desired', 'Current', 'Ready', 'Up-to-date', 'Available'].map((n) => col(n, 'integer')).concat([col('Node Selector'), AGE]),
    cells: (d, now) => [
      ...['desiredNumberScheduled', 'currentNumberScheduled', 'numberReady', 'updatedNumberScheduled', 'numberAvailable'].map((k) => num(field(d, 'status', k))),
      isRecord(field(d, 'spec', 'template', 'spec', 'nodeSelector')) ? Object.entries(field(d, 'spec', 'template', 'spec', 'nodeSelector') as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`).join(',') || '<none>' : '<none>',
      age(d, now),
    ],
  },
  'apps/replicasets': {
    columns: [col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), AGE],
    cells: (r, now) => [num(field(r, 'spec', 'replicas')), num(field(r, 'status', 'replicas')), num(field(r, 'status', 'readyReplicas')), age(r, now)],
  },
  'batch/jobs': {
    columns: [col('Status'), col('Completions'), col('Duration'), AGE],
    cells: (j, now) => [jobStatus(j), `${num(field(j, 'status', 'succeeded'))}/${num(field(j, 'spec', 'completions')) || 1}`, jobDuration(j, now), age(j, now)],
  },
  'batch/cronjobs': {
    columns: [col('Schedule'), col('Timezone'), col('Suspend', 'boolean'), col('Active', 'integer'), col('Last Schedule'), AGE],
    cells: (c, now) => {
      const last = field(c, 'status', 'lastScheduleTime');
      return [str(field(c, 'spec', 'schedule'), ''), str(field(c, 'spec', 'timeZone')), field(c, 'spec', 'suspend') === true, arr(field(c, 'status', 'active')).length,
        typeof last === 'string' ? humanDuration(now - Date.parse(last)) : '<none>', age(c, now)];
    },
  },
  '/services': {
    columns: [col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), AGE],
    cells: (s, now) => [str(field(s, 'spec', 'type'), 'ClusterIP'), str(field(s, 'spec', 'clusterIP')), externalIp(s), servicePorts(s), age(s, now)],
  },
  '/persistentvolumeclaims': {
    columns: [col('Status'), col('Volume'), col('Capacity'), col('Access Modes'), col('StorageClass'), AGE],
    cells: (p, now) => [
      str(field(p, 'status', 'phase'), 'Pending'), str(field(p, 'spec', 'volumeName'), ''), str(field(p, 'status', 'capacity', 'storage'), ''),
      arr(field(p, 'status', 'accessModes')).map((m) => ACCESS_MODES[String(m)] ?? String(m)).join(','),
      str(field(p, 'spec', 'storageClassName')), age(p, now),
    ],
  },
  '/namespaces': { columns: [col('Status'), AGE], cells: (n, now) => [str(field(n, 'status', 'phase'), 'Active'), age(n, now)] },
  '/configmaps': { columns: [col('Data', 'integer'), AGE], cells: (c, now) => [count(c.data) + count(c.binaryData), age(c, now)] },
  '/secrets': { columns: [col('Type'), col('Data', 'integer'), AGE], cells: (s, now) => [str(s.type, 'Opaque'), count(s.data), age(s, now)] },
  'apiextensions.k8s.io/customresourcedefinitions': {
    columns: [{ ...col('Created At', 'date'), format: '' }],
    cells: (c) => [c.metadata.creationTimestamp ?? null],
  },
};

/** Built-ins without a dedicated printer still show AGE. */
export const defaultPrinter: Printer = { columns: [AGE], cells: (o, now) => [age(o, now)] };
