/**
 * An instance whose target cluster cannot be used (not reached, credentials refused, kubeconfig
 * unusable; docs/clusters.md): its status says so once, naming the cluster and what to try, and keeps
 * everything else it said. Nothing is recorded as seen, so the instance is tried again on every poll;
 * the next status written after the cluster works again drops the mark. Polls that fail the same way
 * write nothing more, so the status does not flap.
 */
import { ClusterError } from '../clusters/errors.js';
import { statusPath, formatStatus, STATUS_API_VERSION, type InstanceKey, type InstanceStatus } from './status-file.js';
import { summaryOf, trailersOf, type Transition } from './trailers.js';
import type { StatusWriter } from './status-writer.js';

/** The ClusterError behind an error (engines and stores may wrap it as a cause). */
export function clusterErrorOf(err: unknown): ClusterError | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ClusterError) return e;
  }
  return undefined;
}

export interface UnreachableInput {
  key: InstanceKey;
  previous: InstanceStatus | undefined;
  /** The user's commit this look was about. */
  commit: string;
  framework?: { name: string; version?: string };
  error: ClusterError;
  now: string;
}

/** The status to write, or undefined when the status already says this (no flapping). */
export function unreachableStatus(input: UnreachableInput): InstanceStatus | undefined {
  const { previous, error } = input;
  if (previous?.cluster?.unreachable?.code === error.code && previous.cluster.name === error.cluster) return undefined;
  const base: InstanceStatus = previous ?? {
    apiVersion: STATUS_API_VERSION, kind: 'InstanceStatus', instance: { ...input.key }, framework: input.framework ?? { name: 'unknown' },
    state: 'PENDING', sourceCommit: input.commit, updatedAt: input.now,
    // Nothing seen yet: the instance is looked at again on the next poll.
    observed: { instance: '' }, recentPlans: [], inventory: [], schedules: [], handledRequests: [],
  };
  const since = previous?.cluster?.unreachable?.since ?? input.now;
  const updatedAt = previous !== undefined && Date.parse(input.now) <= Date.parse(previous.updatedAt) ? new Date(Date.parse(previous.updatedAt) + 1).toISOString() : input.now;
  const server = previous?.cluster?.name === error.cluster ? previous.cluster.server : undefined;
  return { ...base, updatedAt, cluster: { name: error.cluster, ...(server !== undefined ? { server } : {}), unreachable: { since, code: error.code, message: error.message } } };
}

/** Writes it as one status commit (`cluster-unreachable`). */
export function submitUnreachable(writer: StatusWriter, status: InstanceStatus, commit: string): void {
  const t: Transition = { instance: status.instance, event: 'cluster-unreachable', result: status.state, sourceCommit: commit, message: status.cluster?.unreachable?.message ?? `cluster ${status.cluster?.name ?? ''} unreachable` };
  writer.submit({ path: statusPath(status.instance), content: formatStatus(status), summary: summaryOf(t), trailers: trailersOf(t) });
}
