/**
 * `gateFor`: the readiness verdict for one object, dispatched through a table kind -> gate so the
 * engine never switches on kind. Framework rules come first, then the built-in gate of the kind,
 * then the kstatus conventions for everything else (custom resources, unknown kinds).
 */
import type { KubeObject } from '../../kube/object.js';
import { groupOf } from '../../kube/object.js';
import { crdGate, namespaceGate } from './cluster.js';
import { kstatusGate, staticGate } from './kstatus.js';
import { ingressGate, serviceGate } from './network.js';
import { jobGate, podGate } from './pods.js';
import { findRule, ruleGate } from './rules.js';
import { pvcGate } from './storage.js';
import { waiting, type Gate, type GateContext, type GateResult } from './types.js';
import { daemonSetGate, deploymentGate, replicaSetGate, statefulSetGate } from './workloads.js';

export type { Gate, GateContext, GateResult } from './types.js';
export { explainWorkload, podsOfWorkload, selectorMatches, type WorkloadExplanation } from './explain.js';

/** Keyed by `<group>/<Kind>` ('' group for core): the version does not change what readiness means. */
const BUILT_IN: ReadonlyMap<string, Gate> = new Map<string, Gate>([
  ['apps/Deployment', deploymentGate],
  ['apps/StatefulSet', statefulSetGate],
  ['apps/DaemonSet', daemonSetGate],
  ['apps/ReplicaSet', replicaSetGate],
  ['batch/Job', jobGate],
  ['/Pod', podGate],
  ['/PersistentVolumeClaim', pvcGate],
  ['/Service', serviceGate],
  ['networking.k8s.io/Ingress', ingressGate],
  ['apiextensions.k8s.io/CustomResourceDefinition', crdGate],
  ['/Namespace', namespaceGate],
  ...[
    '/ConfigMap', '/Secret', '/ServiceAccount', '/Endpoints', '/LimitRange', '/ResourceQuota', '/PersistentVolume',
    'rbac.authorization.k8s.io/Role', 'rbac.authorization.k8s.io/RoleBinding', 'rbac.authorization.k8s.io/ClusterRole',
    'rbac.authorization.k8s.io/ClusterRoleBinding', 'networking.k8s.io/NetworkPolicy', 'policy/PodDisruptionBudget',
    'storage.k8s.io/StorageClass', 'scheduling.k8s.io/PriorityClass', 'batch/CronJob', 'discovery.k8s.io/EndpointSlice',
    'autoscaling/HorizontalPodAutoscaler', 'coordination.k8s.io/Lease',
  ].map((key): [string, Gate] => [key, staticGate]),
]);

export function gateKey(obj: Pick<KubeObject, 'apiVersion' | 'kind'>): string {
  return `${groupOf(obj.apiVersion)}/${obj.kind}`;
}

export function gateFor(obj: KubeObject, ctx: GateContext): GateResult {
  if (obj.metadata.deletionTimestamp !== undefined) return waiting('being deleted');
  const rule = findRule(ctx.rules, obj);
  if (rule) return ruleGate(rule, obj);
  const gate = BUILT_IN.get(gateKey(obj)) ?? kstatusGate;
  return gate(obj, ctx);
}
export { explainFromCluster, isWorkload, matchLabelsSelector } from './pods-lookup.js';
