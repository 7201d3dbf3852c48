/**
 * Kind -> API resource (plural) for RBAC rules, without a cluster: the built-in kinds Baton's catalog
 * and common frameworks render, and custom resources whose CustomResourceDefinition a framework of the
 * repository renders. Anything else is guessed (lowercase plural) and reported, so the user can check.
 */
import { groupOf, isRecord, type KubeObject } from '../kube/object.js';

const BUILT_IN: Record<string, string> = {
  '/ConfigMap': 'configmaps', '/Secret': 'secrets', '/Service': 'services', '/ServiceAccount': 'serviceaccounts',
  '/PersistentVolumeClaim': 'persistentvolumeclaims', '/PersistentVolume': 'persistentvolumes', '/Pod': 'pods',
  '/Endpoints': 'endpoints', '/Namespace': 'namespaces', '/Event': 'events', '/LimitRange': 'limitranges',
  '/ResourceQuota': 'resourcequotas', '/ReplicationController': 'replicationcontrollers', '/PodTemplate': 'podtemplates',
  'apps/Deployment': 'deployments', 'apps/StatefulSet': 'statefulsets', 'apps/DaemonSet': 'daemonsets', 'apps/ReplicaSet': 'replicasets',
  'apps/ControllerRevision': 'controllerrevisions',
  'batch/Job': 'jobs', 'batch/CronJob': 'cronjobs',
  'autoscaling/HorizontalPodAutoscaler': 'horizontalpodautoscalers',
  'policy/PodDisruptionBudget': 'poddisruptionbudgets',
  'networking.k8s.io/NetworkPolicy': 'networkpolicies', 'networking.k8s.io/Ingress': 'ingresses', 'networking.k8s.io/IngressClass': 'ingressclasses',
  'rbac.authorization.k8s.io/Role': 'roles', 'rbac.authorization.k8s.io/RoleBinding': 'rolebindings',
  'rbac.authorization.k8s.io/ClusterRole': 'clusterroles', 'rbac.authorization.k8s.io/ClusterRoleBinding': 'clusterrolebindings',
  'storage.k8s.io/StorageClass': 'storageclasses', 'scheduling.k8s.io/PriorityClass': 'priorityclasses',
  'apiextensions.k8s.io/CustomResourceDefinition': 'customresourcedefinitions',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': 'mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': 'validatingwebhookconfigurations',
  'coordination.k8s.io/Lease': 'leases', 'events.k8s.io/Event': 'events',
  'monitoring.coreos.com/ServiceMonitor': 'servicemonitors', 'monitoring.coreos.com/PodMonitor': 'podmonitors', 'monitoring.coreos.com/PrometheusRule': 'prometheusrules',
};

export interface ResourceName {
  group: string;
  resource: string;
  /** True when neither built in nor declared by a rendered CRD. */
  guessed: boolean;
}

/** Resources declared by CustomResourceDefinitions among rendered objects: `group/Kind` -> plural. */
export function crdResources(objects: readonly KubeObject[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition' || !isRecord(o.spec)) continue;
    const names = isRecord(o.spec.names) ? o.spec.names : {};
    if (typeof o.spec.group === 'string' && typeof names.kind === 'string' && typeof names.plural === 'string') out.set(`${o.spec.group}/${names.kind}`, names.plural);
  }
  return out;
}

export function resourceOf(apiVersion: string, kind: string, crds: ReadonlyMap<string, string>): ResourceName {
  const group = groupOf(apiVersion);
  const key = `${group}/${kind}`;
  const known = BUILT_IN[key] ?? crds.get(key);
  if (known !== undefined) return { group, resource: known, guessed: false };
  const lower = kind.toLowerCase();
  const plural = /(s|x|ch|sh)$/.test(lower) ? `${lower}es` : /[^aeiou]y$/.test(lower) ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  return { group, resource: plural, guessed: true };
}
