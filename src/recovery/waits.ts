/**
 * Pod requests that wait (docs/recovery.md, "Pod actions wait for a running plan"): a `pod-restart` or
 * `pod-replace` from the request file is carried out by the agent's pod pass as the instance's worker,
 * after the plan that runs now. Until then the status file says which requests wait and for what,
 * so an operator sees why the pod has not been touched yet. Pure.
 */
import type { Checkpoint } from '../plans/checkpoint.js';

export interface PodRequestLike {
  id: string;
  action: string;
  pod?: string;
  requestedBy?: string;
}

/** One pod request not carried out yet, and what it waits for. */
export interface PodRequestWait {
  id: string;
  action: 'pod-restart' | 'pod-replace';
  pod: string;
  by?: string;
  waitsFor: string;
}

const UNFINISHED: ReadonlySet<string> = new Set(['PENDING', 'IN_PROGRESS', 'ERROR']);

/** The pod requests of the file not handled yet (their ids not in the checkpoint), oldest first, with what each waits for. */
export function podRequestWaits(requests: readonly PodRequestLike[], cp: Checkpoint | undefined): PodRequestWait[] {
  const handled = new Set(cp?.handledRequests ?? []);
  const active = cp?.active;
  const running = active !== undefined && UNFINISHED.has(active.state.status) ? active : undefined;
  const waitsFor = running !== undefined
    ? `plan ${running.plan} (run ${running.id}, ${running.state.status}) to end: a pod action never runs beside a plan; \`baton plan pause\` lets it go first`
    : 'the agent\'s next pod pass';
  const out: PodRequestWait[] = [];
  for (const r of requests) {
    if ((r.action !== 'pod-restart' && r.action !== 'pod-replace') || r.pod === undefined || handled.has(r.id)) continue;
    out.push({ id: r.id, action: r.action, pod: r.pod, ...(r.requestedBy ? { by: r.requestedBy } : {}), waitsFor });
  }
  return out;
}

/** One line for a commit message or log: `pod-replace zk-1 (request r-1) waits for plan deploy ...`. */
export function podWaitText(waits: readonly PodRequestWait[]): string {
  return waits.map((w) => `${w.action} ${w.pod} (request ${w.id}) waits for ${w.waitsFor}`).join('; ');
}
