/**
 * Kind knowledge the renderer needs: the install order inside a batch (Helm's InstallOrder, with CRDs
 * moved right after Namespaces so they can be established before their custom resources) and which
 * built-in kinds are cluster-scoped (they get no namespace).
 */
import type { BatchAction } from './types.js';

const INSTALL_ORDER = [
  'Namespace',
  'CustomResourceDefinition',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
];
const RANK = new Map(INSTALL_ORDER.map((k, i) => [k, i]));

export function kindRank(kind: string): number {
  return RANK.get(kind) ?? INSTALL_ORDER.length;
}

export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'CertificateSigningRequest',
  'FlowSchema',
  'PriorityLevelConfiguration',
]);

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED_KINDS.has(kind);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareObjects(a: BatchAction, b: BatchAction): number {
  return (
    kindRank(a.object.kind) - kindRank(b.object.kind) ||
    compareText(a.object.kind, b.object.kind) ||
    compareText(a.object.metadata.namespace ?? '', b.object.metadata.namespace ?? '') ||
    compareText(a.object.metadata.name ?? '', b.object.metadata.name ?? '')
  );
}

/**
 * The order of one batch: deletions first, in reverse install order (so a Delete task that removes an old
 * Job runs before the Apply that recreates it), then applies in install order; ties by kind, namespace, name.
 */
export function orderBatch(actions: readonly BatchAction[]): BatchAction[] {
  const deletes = actions.filter((a) => a.action === 'delete').sort((a, b) => compareObjects(b, a));
  const applies = actions.filter((a) => a.action === 'apply').sort(compareObjects);
  return [...deletes, ...applies];
}
