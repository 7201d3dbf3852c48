/**
 * The built-in resources the simulated API server serves, with the short names, categories, verbs and
 * scope of the real ones (kubectl resolves `cm`, `deploy`, `all`... from discovery, so they must match).
 */
import type { ConnectSubresource, ResourceType, ScaleSubresource } from './types.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const REPLICAS: ScaleSubresource = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

interface Row {
  g: string;
  k: string;
  /** Version when not v1. */
  v?: string;
  r?: string;
  short?: string[];
  ns?: boolean;
  status?: boolean;
  scale?: boolean;
  all?: boolean;
  verbs?: string[];
  /** The kind's strategy sets metadata.generation. */
  gen?: boolean;
  /** Create-only review kinds, answered and not stored. */
  virtual?: boolean;
  connect?: ConnectSubresource[];
}

const POD_CONNECT: ConnectSubresource[] = [
  { name: 'attach', verbs: ['create', 'get'], kind: { group: '', version: 'v1', kind: 'PodAttachOptions' } },
  { name: 'exec', verbs: ['create', 'get'], kind: { group: '', version: 'v1', kind: 'PodExecOptions' } },
  { name: 'log', verbs: ['get'], kind: { group: '', version: 'v1', kind: 'Pod' } },
  { name: 'portforward', verbs: ['create', 'get'], kind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' } },
];
const TOKEN: ConnectSubresource[] = [{ name: 'token', verbs: ['create'], kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } }];
const REVIEW: Pick<Row, 'verbs' | 'virtual'> = { verbs: ['create'], virtual: true };

// group | kind | plural when not kind+s | short names | namespaced (default true) | status | scale | category all
const ROWS: Row[] = [
  { g: '', k: 'Namespace', short: ['ns'], ns: false, status: true },
  { g: '', k: 'ConfigMap', short: ['cm'] },
  { g: '', k: 'Secret' },
  { g: '', k: 'Service', short: ['svc'], status: true, all: true },
  { g: '', k: 'Endpoints', r: 'endpoints', short: ['ep'] },
  { g: '', k: 'Pod', short: ['po'], status: true, all: true, gen: true, connect: POD_CONNECT },
  { g: '', k: 'ServiceAccount', short: ['sa'], connect: TOKEN },
  { g: '', k: 'PersistentVolumeClaim', short: ['pvc'], status: true },
  { g: '', k: 'PersistentVolume', short: ['pv'], ns: false, status: true },
  { g: '', k: 'Event', short: ['ev'] },
  { g: '', k: 'Node', short: ['no'], ns: false, status: true },
  { g: '', k: 'ReplicationController', short: ['rc'], status: true, scale: true, all: true, gen: true },
  { g: '', k: 'ResourceQuota', short: ['quota'], status: true },
  { g: '', k: 'LimitRange', short: ['limits'] },
  { g: 'storage.k8s.io', k: 'StorageClass', short: ['sc'], ns: false },
  { g: 'apps', k: 'Deployment', short: ['deploy'], status: true, scale: true, all: true, gen: true },
  { g: 'apps', k: 'StatefulSet', short: ['sts'], status: true, scale: true, all: true, gen: true },
  { g: 'apps', k: 'DaemonSet', short: ['ds'], status: true, all: true, gen: true },
  { g: 'apps', k: 'ReplicaSet', short: ['rs'], status: true, scale: true, all: true, gen: true },
  { g: 'apps', k: 'ControllerRevision' },
  { g: 'batch', k: 'Job', status: true, all: true, gen: true },
  { g: 'batch', k: 'CronJob', short: ['cj'], status: true, all: true, gen: true },
  { g: 'autoscaling', v: 'v2', k: 'HorizontalPodAutoscaler', short: ['hpa'], status: true, all: true, gen: true },
  { g: 'policy', k: 'PodDisruptionBudget', short: ['pdb'], status: true, gen: true },
  { g: 'rbac.authorization.k8s.io', k: 'Role' },
  { g: 'rbac.authorization.k8s.io', k: 'RoleBinding' },
  { g: 'rbac.authorization.k8s.io', k: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', k: 'ClusterRoleBinding', ns: false },
  { g: 'networking.k8s.io', k: 'Ingress', r: 'ingresses', short: ['ing'], status: true, gen: true },
  { g: 'networking.k8s.io', k: 'IngressClass', r: 'ingressclasses', ns: false, gen: true },
  { g: 'networking.k8s.io', k: 'NetworkPolicy', r: 'networkpolicies', short: ['netpol'], gen: true },
  { g: 'discovery.k8s.io', k: 'EndpointSlice', gen: true },
  { g: 'scheduling.k8s.io', k: 'PriorityClass', r: 'priorityclasses', short: ['pc'], ns: false },
  { g: 'coordination.k8s.io', k: 'Lease' },
  { g: 'authorization.k8s.io', k: 'SelfSubjectAccessReview', ns: false, ...REVIEW },
  { g: 'authorization.k8s.io', k: 'SelfSubjectRulesReview', ns: false, ...REVIEW },
  { g: 'authorization.k8s.io', k: 'SubjectAccessReview', ns: false, ...REVIEW },
  { g: 'authorization.k8s.io', k: 'LocalSubjectAccessReview', ...REVIEW },
  { g: 'authentication.k8s.io', k: 'SelfSubjectReview', ns: false, ...REVIEW },
  // kubectl 1.27 asks `auth whoami` of v1beta1 (v1 since 1.28).
  { g: 'authentication.k8s.io', v: 'v1beta1', k: 'SelfSubjectReview', ns: false, ...REVIEW },
  { g: 'authentication.k8s.io', k: 'TokenReview', ns: false, ...REVIEW },
  { g: 'apiextensions.k8s.io', k: 'CustomResourceDefinition', short: ['crd', 'crds'], ns: false, status: true, gen: true },
];

function plural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

function toType(row: Row): ResourceType {
  const type: ResourceType = {
    group: row.g,
    version: row.v ?? 'v1',
    resource: row.r ?? plural(row.k),
    kind: row.k,
    listKind: `${row.k}List`,
    singular: row.k.toLowerCase(),
    namespaced: row.ns ?? true,
    shortNames: row.short ?? [],
    categories: row.all ? ['all'] : [],
    verbs: row.verbs ?? ALL_VERBS,
    subresources: { status: row.status ?? false },
    generation: row.gen ?? false,
    storage: true,
  };
  if (row.scale) type.subresources.scale = REPLICAS;
  if (row.connect) type.connect = row.connect;
  if (row.virtual) type.virtual = true;
  return type;
}

/** Fresh copies each call, so a registry may adjust its own. */
export function builtinTypes(): ResourceType[] {
  return ROWS.map(toType);
}

export const CRD_GROUP = 'apiextensions.k8s.io';
