/**
 * Printers for the cluster-level kinds the simulated controllers create: nodes, persistent volumes,
 * events and leases (kept apart from the workload printers to keep files small).
 */
import type { KubeObject } from '../../kube/object.js';
import { isRecord } from '../../kube/object.js';
import { humanDuration } from './duration.js';
import { AGE, type Printer, age, col, field } from './printers.js';

const str = (v: unknown, fallback = '<none>'): string => (typeof v === 'string' && v !== '' ? v : fallback);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const ACCESS_MODES: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

function nodeStatus(node: KubeObject): string {
  const ready = arr(field(node, 'status', 'conditions')).find((c) => field(c, 'type') === 'Ready');
  const status = field(ready, 'status') === 'True' ? 'Ready' : 'NotReady';
  return field(node, 'spec', 'unschedulable') === true ? `${status},SchedulingDisabled` : status;
}

function nodeRoles(node: KubeObject): string {
  const labels = node.metadata.labels ?? {};
  const roles = Object.keys(labels).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.length > 0 ? roles.sort().join(',') : '<none>';
}

function since(ts: unknown, now: number): string {
  return typeof ts === 'string' && ts !== '' ? humanDuration(now - Date.parse(ts)) : '<unknown>';
}

export const clusterPrinters: Record<string, Printer> = {
  '/nodes': {
    columns: [col('Status'), col('Roles'), AGE, col('Version'), col('Internal-IP', 'string', 1)],
    cells: (n, now) => {
      const internal = arr(field(n, 'status', 'addresses')).find((a) => field(a, 'type') === 'InternalIP');
      return [nodeStatus(n), nodeRoles(n), age(n, now), str(field(n, 'status', 'nodeInfo', 'kubeletVersion'), ''), str(field(internal, 'address'))];
    },
  },
  '/persistentvolumes': {
    columns: [col('Capacity'), col('Access Modes'), col('Reclaim Policy'), col('Status'), col('Claim'), col('StorageClass'), AGE],
    cells: (pv, now) => {
      const claim = field(pv, 'spec', 'claimRef');
      return [
        str(field(pv, 'spec', 'capacity', 'storage'), ''),
        arr(field(pv, 'spec', 'accessModes')).map((m) => ACCESS_MODES[String(m)] ?? String(m)).join(','),
        str(field(pv, 'spec', 'persistentVolumeReclaimPolicy'), 'Retain'), str(field(pv, 'status', 'phase'), 'Pending'),
        isRecord(claim) ? `${str(claim.namespace, '')}/${str(claim.name, '')}` : '', str(field(pv, 'spec', 'storageClassName'), ''), age(pv, now),
      ];
    },
  },
  '/events': {
    nameLast: true,
    columns: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Message')],
    cells: (e, now) => [
      since(field(e, 'lastTimestamp') ?? field(e, 'eventTime') ?? e.metadata.creationTimestamp, now),
      str(field(e, 'type'), ''), str(field(e, 'reason'), ''),
      `${str(field(e, 'involvedObject', 'kind'), '').toLowerCase()}/${str(field(e, 'involvedObject', 'name'), '')}`,
      str(field(e, 'message'), ''),
    ],
  },
  'coordination.k8s.io/leases': {
    columns: [col('Holder'), AGE],
    cells: (l, now) => [str(field(l, 'spec', 'holderIdentity'), ''), age(l, now)],
  },
};
