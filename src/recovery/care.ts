/**
 * What an instance's pods need next, in order: a pod request from Git not carried out yet (oldest
 * first), the volumes of replicas a scale-down removed (`decommission:`), then automatic recovery of
 * pods that stay not ready (`recovery:`). One piece of work at a time per instance; the agent runs it
 * as the instance's worker. Automatic work only runs on an instance whose desired state is applied
 * (synced, nothing running, no drift) and that is not suspended: a pod broken by a failed update is
 * left to the person fixing the update, never replaced.
 */
import type { KubeClient } from '../kube/client.js';
import type { Checkpoint, InstanceKey } from '../plans/checkpoint.js';
import type { DecommissionDecl, RecoveryDecl } from '../render/index.js';
import { removedReplicas, type RemovedReplica } from './decommission.js';
import { PodReader } from './pods.js';
import { recoveryActions } from './plan-runs.js';
import { decideRecovery, recoveryPolicyOf, type HeldPod, type RecoveryAction, type PodVerdict } from './rules.js';

/** A pod action asked for in the instance's request file. */
export interface PodRequest {
  id: string;
  action: 'pod-restart' | 'pod-replace';
  pod: string;
  reason?: string;
  requestedBy?: string;
}

export type CareWork =
  | { kind: 'request'; request: PodRequest }
  | { kind: 'recover'; action: RecoveryAction; pods: PodVerdict[]; reason: string; plan?: string }
  | { kind: 'decommission'; removed: RemovedReplica[]; deleteClaims: boolean; plan?: string };

export interface CareInput {
  client: KubeClient;
  instance: InstanceKey;
  checkpoint: Checkpoint;
  requests: readonly PodRequest[];
  recovery?: RecoveryDecl;
  decommission?: DecommissionDecl;
  /** Automatic recovery and decommission may act (synced, not suspended, no drift). */
  automatic: boolean;
  now: number;
}

export interface CarePlan {
  work?: CareWork;
  /** Not-ready pods left alone this time, and why (status and logs). */
  held: HeldPod[];
}

export async function nextCare(input: CareInput): Promise<CarePlan> {
  const handled = new Set(input.checkpoint.handledRequests);
  const request = input.requests.find((r) => !handled.has(r.id));
  if (request !== undefined) return { work: { kind: 'request', request }, held: [] };
  if (!input.automatic) return { held: [] };
  if (input.decommission !== undefined) {
    const done = new Set(input.checkpoint.pods?.decommissioned ?? []);
    const removed = (await removedReplicas(input.client, input.instance)).filter((r) => r.claims.some((c) => !done.has(c.uid)));
    const deleteClaims = input.decommission.volumes === 'delete';
    if (removed.length > 0 && (deleteClaims || input.decommission.plan !== undefined)) {
      return { work: { kind: 'decommission', removed, deleteClaims, ...(input.decommission.plan ? { plan: input.decommission.plan } : {}) }, held: [] };
    }
  }
  if (input.recovery === undefined) return { held: [] };
  const policy = recoveryPolicyOf(input.recovery);
  const pods = await new PodReader(input.client, input.instance).list();
  const decision = decideRecovery(policy, pods, recoveryActions(input.checkpoint, policy.plan), input.now);
  if (decision.kind === 'none') return { held: decision.held };
  return { work: { kind: 'recover', action: decision.action, pods: decision.pods, reason: decision.reason, ...(decision.action === 'plan' ? { plan: policy.plan } : {}) }, held: decision.held };
}
