/**
 * Many clusters (docs/clusters.md): baton.yaml `clusters` names clusters by kubeconfig file, context or
 * a kubeconfig Secret; an instance file's `cluster:` picks its target. The router sends each
 * instance's objects, checkpoint and Events to its target; errors name the cluster.
 */
export { OWN_CLUSTER, clusterDecl, clusterMoveProblem, clusterServerChangeProblem, clusterNames, clusterViolations, type ClusterFacts } from './rules.js';
export { ClusterClient, type ConnectContext } from './connect.js';
export { ClusterConfigError, ClusterError, ClusterIdentityChangedError, ClusterIdentityForbiddenError, ClusterServerChangedError, ClusterUnauthorizedError, ClusterUnreachableError, type ClusterProblem, type ClusterWhere } from './errors.js';
export { ClusterRouter, type RouterOptions } from './router.js';
export { assignTargets, type AssignInput, type PreviousTarget, type TargetedInstance } from './assign.js';
export { describeTarget, targetText, type ClusterTarget, type LocalKubeconfig } from './describe.js';
export { ClusterIdentityRecord, identityRecordName, type ClusterIdentity, type IdentityCheck, type RecordedIdentity } from './identity.js';
