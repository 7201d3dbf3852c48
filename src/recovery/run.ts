/**
 * A pod action as a run: `pod-restart` or `pod-replace`, one step per pod, recorded in the checkpoint's
 * `pods.last` (never the active run: it does not apply a desired state) and announced through the same
 * engine events as any plan (plan-started, step-started/waiting/complete, phase-complete,
 * plan-complete / plan-failed), so status commits, `baton history`, Kubernetes Events and the CLI's
 * progress lines see it like any other run. The pods are checked (they exist, they are the instance's)
 * before anything is deleted; a request the agent carries out is recorded even when refused (a run
 * that fails at once, naming why), so the refusal shows in status and history.
 */
import { BatonError, errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { HANDLED_REQUESTS_LIMIT, type Checkpoint, type CheckpointStore, type InstanceKey, type PodActionEntry } from '../plans/checkpoint.js';
import { systemClock, type Clock } from '../plans/clock.js';
import { isUnfinished } from '../plans/concurrency.js';
import { safeEmitter, type EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import type { FailureInfo, PlanRun } from '../plans/state.js';
import { InstanceUnknownError, PodActionBusyError } from './errors.js';
import { runPodOp, type PodActionKind, type PodOpResult } from './pod-ops.js';
import { PodReader, type InstancePod } from './pods.js';
import { PodRunRecorder } from './recorder.js';

export const POD_PLANS = { restart: 'pod-restart', replace: 'pod-replace' } as const satisfies Record<PodActionKind, string>;
export const DEFAULT_POD_TIMEOUT_SECONDS = 600;

export interface PodActionOptions {
  client: KubeClient;
  hooks: EngineHooks;
  store: CheckpointStore;
  instance: InstanceKey;
  action: PodActionKind;
  pods: readonly string[];
  /** Why, as the person or the recovery rule said it (recorded in the run, status, history and Events). */
  reason: string;
  /** Who asked: a person (`Jane <jane@example.com>`), or `recovery`. */
  by: string;
  /**
   * The request (Git) this carries out: its id is recorded as handled with the run, even a refused one.
   * An id already handled (in the checkpoint, or in `handled`) is not carried out again (see runPodAction).
   */
  requestId?: string;
  /** Request ids the caller's record says are handled (the status file), besides the checkpoint's. */
  handled?: readonly string[];
  /** The user's commit the agent acts at (absent outside Git). */
  sourceCommit?: string;
  /** Per pod: the start of its not-ready episode (recovery carries it across restarts). */
  notReadySince?: Readonly<Record<string, string>>;
  timeoutSeconds?: number;
  clock?: Clock;
  signal?: AbortSignal;
  onEvent?: EventListener;
  /** Checked pods, when the caller already read them (recovery); otherwise read here. */
  targets?: readonly InstancePod[];
}

export type PodActionResult =
  | { kind: 'complete'; run: PlanRun; results: Record<string, PodOpResult> }
  | { kind: 'failed'; run: PlanRun; error: FailureInfo }
  | { kind: 'superseded'; run: PlanRun }
  /** The request was handled before (perhaps by another shard member): nothing was done or recorded. */
  | { kind: 'handled'; requestId: string };

/**
 * Checks the instance and its pods, then runs the action. Without `requestId` a bad pod or a busy
 * instance throws before anything changes; with one, the refusal is recorded as a failed run.
 */
export async function runPodAction(options: PodActionOptions): Promise<PodActionResult> {
  const clock = options.clock ?? systemClock;
  const emit = safeEmitter(options.onEvent);
  const stored = await options.store.load(options.instance);
  if (stored === undefined) throw new InstanceUnknownError(options.instance);
  const cp = stored.checkpoint;
  // Idempotent by request id, checked here, where the action acts (after whatever its caller waited for):
  // a request carried out before (by another member before a handover, or a pass that decided with an
  // older record) neither touches the pod again nor is recorded again, not even as a refusal. A run
  // someone else starts after this read changes the checkpoint's `pods`: this run's first save (before
  // any deletion) then fails on the checkpoint's version.
  const requestId = options.requestId;
  if (requestId !== undefined && (cp.handledRequests.includes(requestId) || options.handled?.includes(requestId) === true)) return { kind: 'handled', requestId };
  const plan = POD_PLANS[options.action];
  const handled = (c: Checkpoint): Checkpoint => (options.requestId === undefined || c.handledRequests.includes(options.requestId) ? c : { ...c, handledRequests: [options.requestId, ...c.handledRequests].slice(0, HANDLED_REQUESTS_LIMIT) });
  let targets: readonly InstancePod[];
  try {
    // A plan executing now writes the checkpoint too; a paused or failed one does not.
    if (cp.active?.state.status === 'IN_PROGRESS') throw new PodActionBusyError(options.instance, `plan ${cp.active.plan} is running (run ${cp.active.id}); pause it or wait for it to finish`);
    if (cp.pods?.last && isUnfinished(cp.pods.last) && !stale(cp.pods.last, clock, options.timeoutSeconds)) throw new PodActionBusyError(options.instance, `${cp.pods.last.plan} is running (run ${cp.pods.last.id})`);
    if (options.pods.length === 0) throw new BatonError('POD_ACTION_INVALID', 'no pod named', { ...options.instance });
    const reader = new PodReader(options.client, options.instance);
    targets = options.targets ?? (await Promise.all(options.pods.map((p) => reader.get(p))));
  } catch (err) {
    if (options.requestId === undefined || !(err instanceof BatonError)) throw err;
    // A request from Git: recorded as a run that fails at once, so status and history say why.
    const refused = new PodRunRecorder({ store: options.store, stored, hooks: options.hooks, clock, emit, instance: options.instance, plan, phase: options.action, steps: [...options.pods], reason: options.reason, args: { POD: options.pods.join(','), BY: options.by }, ...(options.sourceCommit ? { sourceCommit: options.sourceCommit } : {}), entries: () => [], alsoSave: handled });
    await refused.start();
    const result = await refused.finish('', { code: err.code, message: `refused: ${err.message}` });
    return result.kind === 'failed' ? result : { kind: 'failed', run: result.run, error: { code: err.code, message: err.message } };
  }

  const entries = (runId: string, at: string): PodActionEntry[] => targets.map((t) => {
    const since = options.notReadySince?.[t.name] ?? t.notReady?.since;
    return { pod: t.name, action: options.action, at, runId, by: options.by, ...(since !== undefined ? { notReadySince: since } : {}) };
  });
  const recorder = new PodRunRecorder({
    store: options.store, stored, hooks: options.hooks, clock, emit, instance: options.instance, plan, phase: options.action, steps: targets.map((t) => t.name),
    reason: options.reason, args: { POD: targets.map((t) => t.name).join(','), BY: options.by }, ...(options.sourceCommit ? { sourceCommit: options.sourceCommit } : {}), entries, alsoSave: handled,
  });
  await recorder.start();
  const deadline = new AbortController();
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_POD_TIMEOUT_SECONDS;
  const timer = setTimeout(() => deadline.abort(new BatonError('STEP_TIMEOUT', `the pod was not ready again within ${timeoutSeconds}s`, {})), timeoutSeconds * 1000);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const results: Record<string, PodOpResult> = {};
  try {
    await Promise.all(targets.map(async (t) => {
      await recorder.stepStarted(t.name, `${options.action}${t.notReady ? ` (${t.notReady.reason}: ${t.notReady.message})` : ''}`, 1 + (options.action === 'replace' ? t.claims.length : 0));
      try {
        const r = await runPodOp(options.action, t, { client: options.client, hooks: options.hooks, clock, signal, onWaiting: (object, message) => recorder.waiting(t.name, object, message) });
        results[t.name] = r;
        await recorder.stepComplete(t.name, doneMessage(options.action, t, r), r.deleted.length);
      } catch (err) {
        if (options.signal?.aborted === true && !deadline.signal.aborted) throw err;
        const code = deadline.signal.aborted ? 'STEP_TIMEOUT' : err instanceof BatonError ? err.code : 'POD_ACTION_FAILED';
        await recorder.stepFailed(t.name, { code, message: deadline.signal.aborted ? errorMessage(deadline.signal.reason) : errorMessage(err), object: `Pod ${options.instance.namespace}/${t.name}` });
      }
    }));
  } catch {
    // Stopped (a shutdown, a newer desired state): recorded as failed, so the run has its one end.
    const stopped = await recorder.finish('', { code: 'SUPERSEDED', message: 'stopped before the pod was ready again: a newer desired state or a shutdown' });
    return { kind: 'superseded', run: stopped.run };
  } finally {
    clearTimeout(timer);
  }
  const summary = Object.entries(results).map(([pod, r]) => `${pod}: ${doneMessage(options.action, targets.find((x) => x.name === pod), r)}`).join('; ');
  const end = await recorder.finish(summary);
  return end.kind === 'complete' ? { kind: 'complete', run: end.run, results } : end;
}

/** An unfinished pod action older than its timeout was interrupted (its process stopped): a new one may start. */
function stale(run: PlanRun, clock: Clock, timeoutSeconds = DEFAULT_POD_TIMEOUT_SECONDS): boolean {
  const started = 'startedAt' in run.state ? Date.parse(run.state.startedAt) : 0;
  return clock.now() - started > timeoutSeconds * 1000;
}

function doneMessage(action: PodActionKind, before: InstancePod | undefined, r: PodOpResult): string {
  const where = r.node ? ` on node ${r.node}${before?.node && before.node !== r.node ? ` (was ${before.node})` : ''}` : '';
  const claims = Object.keys(r.claims);
  return action === 'replace' ? `replaced${where}, ready${claims.length > 0 ? ` with new claim${claims.length === 1 ? '' : 's'} ${claims.join(', ')}` : ' (no claims of its own)'}` : `restarted${where}, ready`;
}
