/**
 * Pods and recovery (docs/recovery.md), the one entry point of src/recovery/:
 *
 * - `runPodAction`: `baton pod restart|replace` as a run (`pod-restart`, `pod-replace`) recorded in the
 *   checkpoint and announced through engine events, for the CLI and the agent alike.
 * - `PodReader`: which pods belong to an instance, their own claims, and why and since when they are
 *   not ready.
 */
export { runPodAction, POD_PLANS, DEFAULT_POD_TIMEOUT_SECONDS, type PodActionOptions, type PodActionResult } from './run.js';
export { PodReader, notReadyOf, isPodReady, type InstancePod, type NotReadyReason, type WorkloadRef } from './pods.js';
export type { PodActionKind, PodOpResult } from './pod-ops.js';
export { InstanceUnknownError, PodUnknownError, PodNotOfInstanceError, PodActionBusyError } from './errors.js';
export { nextCare, type CareWork, type CareInput, type CarePlan, type PodRequest } from './care.js';
export { decideRecovery, recoveryPolicyOf, RECOVERY_ACTOR, formatMs, type RecoveryPolicy, type RecoveryDecision, type HeldPod } from './rules.js';
export { removedReplicas, runDecommission, claimsAbove, DECOMMISSION_PLAN, type RemovedReplica } from './decommission.js';
export { podRequestWaits, podWaitText, type PodRequestWait } from './waits.js';
export { recoveryRequestId, recoveryActions, recoveryPlanEntries, recordRecoveryPlanRuns, withRecoveryPlanLedger } from './plan-runs.js';
