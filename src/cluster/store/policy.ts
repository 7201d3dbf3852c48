/**
 * The RBAC objects a real API server bootstraps (labelled `kubernetes.io/bootstrapping: rbac-defaults`):
 * `cluster-admin` for `system:masters`, discovery, basic self-review and public info for every
 * authenticated user, and the user-facing `admin`, `edit` and `view` roles. The rules of `admin`, `edit`
 * and `view` are written out here (the real ones are aggregated from labelled roles), covering the
 * resources this simulated server serves.
 */
import type { Core } from './core.js';
import { createObject } from './write.js';

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; nonResourceURLs?: string[] };

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

/** What `view` reads: workloads, config (not secrets), services, storage claims, policy objects. */
const VIEWABLE: [string, string[]][] = [
  ['', ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'pods/log', 'pods/status', 'replicationcontrollers', 'replicationcontrollers/scale', 'replicationcontrollers/status', 'serviceaccounts', 'services', 'services/status', 'bindings', 'events', 'limitranges', 'namespaces', 'namespaces/status', 'resourcequotas', 'resourcequotas/status']],
  ['apps', ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']],
  ['autoscaling', ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']],
  ['batch', ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']],
  ['discovery.k8s.io', ['endpointslices']],
  ['policy', ['poddisruptionbudgets', 'poddisruptionbudgets/status']],
  ['networking.k8s.io', ['ingresses', 'ingresses/status', 'networkpolicies']],
  ['coordination.k8s.io', ['leases']],
];

/** What `edit` may change: the same minus status, plus secrets, pod exec/attach/port-forward, tokens. */
const EDITABLE: [string, string[]][] = [
  ['', ['configmaps', 'endpoints', 'persistentvolumeclaims', 'pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'pods/eviction', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'serviceaccounts/token', 'services', 'services/proxy', 'events']],
  ['apps', ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']],
  ['autoscaling', ['horizontalpodautoscalers']],
  ['batch', ['cronjobs', 'jobs']],
  ['discovery.k8s.io', ['endpointslices']],
  ['policy', ['poddisruptionbudgets']],
  ['networking.k8s.io', ['ingresses', 'networkpolicies']],
  ['coordination.k8s.io', ['leases']],
];

const rules = (table: [string, string[]][], verbs: string[]): Rule[] => table.map(([g, resources]) => ({ apiGroups: [g], resources, verbs }));

const VIEW = rules(VIEWABLE, READ);
const EDIT = [...VIEW, ...rules(EDITABLE, WRITE), { apiGroups: [''], resources: ['secrets'], verbs: READ }, { apiGroups: [''], resources: ['pods/exec', 'pods/attach', 'pods/portforward'], verbs: ['get'] }];
const ADMIN = [...EDIT, { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: [...READ, ...WRITE] }, { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] }];

const CLUSTER_ROLES: Record<string, Rule[]> = {
  'cluster-admin': [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }],
  admin: ADMIN,
  edit: EDIT,
  view: VIEW,
  'system:discovery': [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }],
  'system:basic-user': [
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ],
  'system:public-info-viewer': [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
};

const BINDINGS: [string, { kind: string; name: string }[]][] = [
  ['cluster-admin', [{ kind: 'Group', name: 'system:masters' }]],
  ['system:discovery', [{ kind: 'Group', name: 'system:authenticated' }]],
  ['system:basic-user', [{ kind: 'Group', name: 'system:authenticated' }]],
  ['system:public-info-viewer', [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }]],
];

const META = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };

/** Creates the default roles and bindings that are missing (a restarted data dir keeps its own). */
export function bootstrapPolicy(core: Core): void {
  const roleType = core.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles');
  const bindingType = core.registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings');
  if (!roleType || !bindingType) return;
  const opts = { fieldManager: 'kube-apiserver' };
  for (const [name, roleRules] of Object.entries(CLUSTER_ROLES)) {
    if (core.find('rbac.authorization.k8s.io/clusterroles', '', name)) continue;
    createObject(core, roleType, undefined, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, ...META }, rules: roleRules }, opts);
  }
  for (const [name, subjects] of BINDINGS) {
    if (core.find('rbac.authorization.k8s.io/clusterrolebindings', '', name)) continue;
    const body = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, ...META },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: subjects.map((s) => ({ apiGroup: 'rbac.authorization.k8s.io', ...s })),
    };
    createObject(core, bindingType, undefined, body, opts);
  }
}
