/**
 * The Deployment status the real controller reports (sync.go calculateStatus, progress.go): counts
 * summed over its ReplicaSets, Available against maxUnavailable, and Progressing with its reasons,
 * including ProgressDeadlineExceeded when no progress was made for progressDeadlineSeconds.
 */
import type { KubeObject } from '../../../kube/object.js';
import { conditionsOf, kubeTime, nameOf, num, setCondition, spec, status, type Condition } from '../runtime/meta.js';
import { limitsOf, replicasOf } from './plan.js';

export interface StatusInput {
  deploy: KubeObject;
  newRS: KubeObject | undefined;
  all: KubeObject[];
  now: number;
  /** When this controller last saw progress (ms), if it knows better than lastUpdateTime's seconds. */
  lastProgressAt: number | undefined;
  /** A ReplicaSet was created in this pass. */
  created: boolean;
}

export interface StatusResult {
  status: Record<string, unknown>;
  /** Progress was made in this pass (counts moved or a ReplicaSet was created). */
  progressed: boolean;
  complete: boolean;
  /** Milliseconds until the progress deadline passes, when a rollout is under way. */
  deadlineInMs?: number;
}

const sum = (list: KubeObject[], field: string): number => list.reduce((n, rs) => n + num(status(rs)[field], 0), 0);

export function deploymentStatus(input: StatusInput): StatusResult {
  const { deploy, newRS, all, now } = input;
  const limits = limitsOf(deploy);
  const old = status(deploy);
  const counts = {
    replicas: sum(all, 'replicas'),
    updatedReplicas: newRS ? num(status(newRS).replicas, 0) : 0,
    readyReplicas: sum(all, 'readyReplicas'),
    availableReplicas: sum(all, 'availableReplicas'),
  };
  const total = all.reduce((n, rs) => n + replicasOf(rs), 0);
  const unavailable = Math.max(0, total - counts.availableReplicas);
  let conditions: Condition[] = conditionsOf(deploy);

  const available = counts.availableReplicas >= limits.desired - limits.maxUnavailable;
  conditions = setCondition(
    conditions,
    available
      ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
      : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
    now,
    true,
  );

  const complete =
    newRS !== undefined &&
    counts.updatedReplicas === limits.desired &&
    counts.replicas === limits.desired &&
    counts.availableReplicas === limits.desired &&
    replicasOf(newRS) === limits.desired;
  const moved = (['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'] as const).some((k) => num(old[k], 0) !== counts[k]);
  const progressed = input.created || moved || old.observedGeneration !== deploy.metadata.generation;
  const { conditions: withProgress, deadlineInMs } = progressing(input, conditions, { complete, moved, progressed });
  conditions = withProgress;

  const next: Record<string, unknown> = {
    observedGeneration: deploy.metadata.generation ?? 1,
    replicas: counts.replicas,
    updatedReplicas: counts.updatedReplicas,
    readyReplicas: counts.readyReplicas,
    availableReplicas: counts.availableReplicas,
    conditions: order(conditions),
  };
  if (unavailable > 0) next.unavailableReplicas = unavailable;
  if (old.collisionCount !== undefined) next.collisionCount = old.collisionCount;
  // The real API omits zero counts.
  for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']) if (next[k] === 0) delete next[k];
  const result: StatusResult = { status: next, progressed, complete };
  if (deadlineInMs !== undefined) result.deadlineInMs = deadlineInMs;
  return result;
}

interface Progress {
  complete: boolean;
  /** Counts changed since the last status. */
  moved: boolean;
  progressed: boolean;
}

/** The Progressing condition (progress.go), and how long until the deadline check is due. */
function progressing(input: StatusInput, conditions: Condition[], p: Progress): { conditions: Condition[]; deadlineInMs?: number } {
  const { deploy, newRS, now } = input;
  const rsName = newRS ? nameOf(newRS) : nameOf(deploy);
  const deadlineSeconds = num(spec(deploy).progressDeadlineSeconds, 600);
  const current = conditions.find((c) => c.type === 'Progressing');
  if (p.complete) {
    return { conditions: setCondition(conditions, { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` }, now, true) };
  }
  if (p.progressed || !current) {
    const reason = input.created || (current?.reason === 'NewReplicaSetCreated' && !p.moved) ? 'NewReplicaSetCreated' : 'ReplicaSetUpdated';
    const message = reason === 'NewReplicaSetCreated' ? `Created new replica set "${rsName}"` : `ReplicaSet "${rsName}" is progressing.`;
    // Progress refreshes lastUpdateTime even when the text is the same; the transition time stays.
    const next = setCondition(conditions.filter((c) => c.type !== 'Progressing' || c.status !== 'True' || c.reason !== reason), { type: 'Progressing', status: 'True', reason, message }, now, true);
    const updated = next.find((c) => c.type === 'Progressing');
    if (updated && current?.status === 'True') updated.lastTransitionTime = current.lastTransitionTime ?? kubeTime(now);
    return { conditions: next, deadlineInMs: deadlineSeconds * 1000 };
  }
  if (current.reason === 'ProgressDeadlineExceeded') return { conditions };
  const since = input.lastProgressAt ?? Date.parse(current.lastUpdateTime ?? current.lastTransitionTime ?? '');
  const left = (Number.isFinite(since) ? since : now) + deadlineSeconds * 1000 - now;
  if (left > 0) return { conditions, deadlineInMs: left };
  return { conditions: setCondition(conditions, { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` }, now, true) };
}

/** Available first, then Progressing, as `kubectl describe` shows them. */
function order(conditions: Condition[]): Condition[] {
  const rank = (c: Condition): number => (c.type === 'Available' ? 0 : c.type === 'Progressing' ? 1 : 2);
  return [...conditions].sort((a, b) => rank(a) - rank(b));
}
