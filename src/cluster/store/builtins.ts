/**
 * The built-in resources the simulated API server serves, with the short names, categories, verbs and
 * scope of the real ones (kubectl resolves `cm`, `deploy`, `all`... from discovery, so they must match).
 */
import type { ResourceType, ScaleSubresource } from './types.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const REPLICAS: ScaleSubresource = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

interface Row {
  g: string;
  k: string;
  r?: string;
  short?: string[];
  ns?: boolean;
  status?: boolean;
  scale?: boolean;
  all?: boolean;
  verbs?: string[];
}

// group | kind | plural when not kind+s | short names | namespaced (default true) | status | scale | category all
const ROWS: Row[] = [
  { g: '', k: 'Namespace', short: ['ns'], ns: false, status: true },
  { g: '', k: 'ConfigMap', short: ['cm'] },
  { g: '', k: 'Secret' },
  { g: '', k: 'Service', short: ['svc'], status: true, all: true },
  { g: '', k: 'Endpoints', r: 'endpoints', short: ['ep'] },
  { g: '', k: 'Pod', short: ['po'], status: true, all: true },
  { g: '', k: 'ServiceAccount', short: ['sa'] },
  { g: '', k: 'PersistentVolumeClaim', short: ['pvc'], status: true },
  { g: '', k: 'PersistentVolume', short: ['pv'], ns: false, status: true },
  { g: '', k: 'Event', short: ['ev'] },
  { g: '', k: 'Node', short: ['no'], ns: false, status: true },
  { g: '', k: 'ReplicationController', short: ['rc'], status: true, scale: true, all: true },
  { g: 'storage.k8s.io', k: 'StorageClass', short: ['sc'], ns: false },
  { g: 'apps', k: 'Deployment', short: ['deploy'], status: true, scale: true, all: true },
  { g: 'apps', k: 'StatefulSet', short: ['sts'], status: true, scale: true, all: true },
  { g: 'apps', k: 'DaemonSet', short: ['ds'], status: true, all: true },
  { g: 'apps', k: 'ReplicaSet', short: ['rs'], status: true, scale: true, all: true },
  { g: 'apps', k: 'ControllerRevision' },
  { g: 'batch', k: 'Job', status: true, all: true },
  { g: 'batch', k: 'CronJob', short: ['cj'], status: true, all: true },
  { g: 'policy', k: 'PodDisruptionBudget', short: ['pdb'], status: true },
  { g: 'rbac.authorization.k8s.io', k: 'Role' },
  { g: 'rbac.authorization.k8s.io', k: 'RoleBinding' },
  { g: 'rbac.authorization.k8s.io', k: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', k: 'ClusterRoleBinding', ns: false },
  { g: 'networking.k8s.io', k: 'Ingress', r: 'ingresses', short: ['ing'], status: true },
  { g: 'coordination.k8s.io', k: 'Lease' },
  { g: 'apiextensions.k8s.io', k: 'CustomResourceDefinition', short: ['crd', 'crds'], ns: false, status: true },
];

const VERSIONS: Record<string, string> = { '': 'v1' };

function plural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

function toType(row: Row): ResourceType {
  const type: ResourceType = {
    group: row.g,
    version: VERSIONS[row.g] ?? 'v1',
    resource: row.r ?? plural(row.k),
    kind: row.k,
    listKind: `${row.k}List`,
    singular: row.k.toLowerCase(),
    namespaced: row.ns ?? true,
    shortNames: row.short ?? [],
    categories: row.all ? ['all'] : [],
    verbs: row.verbs ?? ALL_VERBS,
    subresources: { status: row.status ?? false },
    storage: true,
  };
  if (row.scale) type.subresources.scale = REPLICAS;
  return type;
}

/** Fresh copies each call, so a registry may adjust its own. */
export function builtinTypes(): ResourceType[] {
  return ROWS.map(toType);
}

export const CRD_GROUP = 'apiextensions.k8s.io';
