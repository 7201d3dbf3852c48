/**
 * A pod action as a run: `pod-restart` or `pod-replace`, one step per pod, recorded in the checkpoint's
 * `pods.last` (never the active run: it does not apply a desired state) and announced through the same
 * engine events as any plan (plan-started, step-started/waiting/complete, phase-complete,
 * plan-complete / plan-failed), so status commits, `baton history`, Kubernetes Events and the CLI's
 * progress lines see it like any other run. The pods are checked (they exist, they are the instance's)
 * before anything is recorded or deleted.
 */
import { randomUUID } from 'node:crypto';
import { BatonError, errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { POD_ACTIONS_LIMIT, type CheckpointStore, type InstanceKey, type PodActionEntry } from '../plans/checkpoint.js';
import { isoAt, systemClock, type Clock } from '../plans/clock.js';
import { isUnfinished } from '../plans/concurrency.js';
import { safeEmitter, type EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import { stepState, withPhaseState, withPlanState, withStepState } from '../plans/run-record.js';
import { CheckpointSession } from '../plans/session.js';
import { complete, fatal, inProgress, pending, type FailureInfo, type PlanRun } from '../plans/state.js';
import { InstanceUnknownError, PodActionBusyError } from './errors.js';
import { runPodOp, type PodActionKind, type PodOpResult } from './pod-ops.js';
import { PodReader, type InstancePod } from './pods.js';

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
  /** Who asked: a person (`Jane <jane@example.com>`), a request id, or `recovery`. */
  by: string;
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
  | { kind: 'superseded'; run: PlanRun };

/**
 * Checks the instance and its pods, then runs the action. Throws (before changing anything) when the
 * instance is unknown, a pod is unknown or not the instance's, or a plan is running on the instance.
 */
export async function runPodAction(options: PodActionOptions): Promise<PodActionResult> {
  const clock = options.clock ?? systemClock;
  const emit = safeEmitter(options.onEvent);
  const stored = await options.store.load(options.instance);
  if (stored === undefined) throw new InstanceUnknownError(options.instance);
  const cp = stored.checkpoint;
  if (isUnfinished(cp.active)) throw new PodActionBusyError(options.instance, `plan ${cp.active?.plan ?? '?'} is running (run ${cp.active?.id ?? '?'})`);
  if (cp.pods?.last && isUnfinished(cp.pods.last) && !stale(cp.pods.last, clock, options.timeoutSeconds)) throw new PodActionBusyError(options.instance, `${cp.pods.last.plan} is running (run ${cp.pods.last.id})`);
  if (options.pods.length === 0) throw new BatonError('POD_ACTION_INVALID', 'no pod named', { ...options.instance });
  const reader = new PodReader(options.client, options.instance);
  const targets = options.targets ?? (await Promise.all(options.pods.map((p) => reader.get(p))));

  const plan = POD_PLANS[options.action];
  const now = isoAt(clock);
  let run: PlanRun = {
    id: randomUUID(),
    plan,
    reason: options.reason.slice(0, 500),
    args: { POD: targets.map((t) => t.name).join(','), BY: options.by },
    frameworkVersion: cp.target?.frameworkVersion ?? cp.applied?.frameworkVersion ?? '',
    ...(options.sourceCommit ? { sourceCommit: options.sourceCommit } : {}),
    strategy: 'parallel',
    state: inProgress(pending(), now, `${options.action} ${targets.map((t) => t.name).join(', ')}`),
    phases: [{ name: options.action, strategy: 'parallel', state: inProgress(pending(), now, `${options.action} ${targets.length} pod${targets.length === 1 ? '' : 's'}`), steps: targets.map((t) => ({ name: t.name, state: pending() })) }],
  };
  const session = new CheckpointSession(options.store, cp, stored.version, emit, (t) => t, { hooks: options.hooks, clock });
  const entries = targets.map((t): PodActionEntry => {
    const since = options.notReadySince?.[t.name] ?? t.notReady?.since;
    return { pod: t.name, action: options.action, at: now, runId: run.id, by: options.by, ...(since !== undefined ? { notReadySince: since } : {}) };
  });
  const save = (r: PlanRun): Promise<void> =>
    session.update((c) => {
      const recent = c.pods?.recent ?? [];
      const fresh = recent[0]?.runId === r.id ? recent : [...entries, ...recent].slice(0, POD_ACTIONS_LIMIT);
      return { ...c, pods: { ...(c.pods ?? {}), recent: fresh, last: r } };
    });
  await save(run);
  const base = { instance: options.instance, runId: run.id, plan };
  emit({ type: 'plan-started', ...base, run, resumed: false, warnings: [] });
  emit({ type: 'phase-started', ...base, phase: options.action });

  const deadline = new AbortController();
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_POD_TIMEOUT_SECONDS;
  const timer = setTimeout(() => deadline.abort(new BatonError('STEP_TIMEOUT', `the pod was not ready again within ${timeoutSeconds}s`, {})), timeoutSeconds * 1000);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const results: Record<string, PodOpResult> = {};
  let failure: FailureInfo | undefined;
  try {
    await Promise.all(
      targets.map(async (t) => {
        const at = { ...base, phase: options.action, step: t.name };
        run = withStepState(run, options.action, t.name, inProgress(stepState(run, options.action, t.name), isoAt(clock), `${options.action} ${t.notReady ? `(${t.notReady.reason}: ${t.notReady.message})` : ''}`.trim()));
        await save(run);
        emit({ type: 'step-started', ...at, objects: 1 + (options.action === 'replace' ? t.claims.length : 0), attempt: 0 });
        try {
          const r = await runPodOp(options.action, t, { client: options.client, hooks: options.hooks, clock, signal, onWaiting: (object, message) => emit({ type: 'step-waiting', ...at, object, message }) });
          results[t.name] = r;
          run = withStepState(run, options.action, t.name, complete(stepState(run, options.action, t.name), isoAt(clock), doneMessage(options.action, t, r)));
          await save(run);
          emit({ type: 'step-complete', ...at, applied: 0, deleted: r.deleted.length, objects: [] });
        } catch (err) {
          const error: FailureInfo = { code: deadline.signal.aborted ? 'STEP_TIMEOUT' : err instanceof BatonError ? err.code : 'POD_ACTION_FAILED', message: deadline.signal.aborted ? errorMessage(deadline.signal.reason) : errorMessage(err), object: `Pod ${options.instance.namespace}/${t.name}` };
          if (options.signal?.aborted === true && !deadline.signal.aborted) throw err;
          failure ??= error;
          run = withStepState(run, options.action, t.name, fatal(stepState(run, options.action, t.name), isoAt(clock), error));
          await save(run);
          emit({ type: 'step-failed', ...at, error });
        }
      }),
    );
  } catch {
    // Stopped (a shutdown, a newer desired state): recorded as failed, so the run has its one end.
    const error: FailureInfo = { code: 'SUPERSEDED', message: 'stopped before the pod was ready again: a newer desired state or a shutdown' };
    run = withPhaseState(run, options.action, fatal(run.phases[0]?.state ?? pending(), isoAt(clock), error));
    run = withPlanState(run, fatal(run.state, isoAt(clock), error));
    await save(run).catch(() => undefined);
    emit({ type: 'plan-failed', ...base, run, error });
    return { kind: 'superseded', run };
  } finally {
    clearTimeout(timer);
  }
  const t = isoAt(clock);
  if (failure !== undefined) {
    run = withPhaseState(run, options.action, fatal(run.phases[0]?.state ?? pending(), t, failure));
    run = withPlanState(run, fatal(run.state, t, failure));
    await save(run);
    emit({ type: 'phase-failed', ...base, phase: options.action });
    emit({ type: 'plan-failed', ...base, run, error: failure });
    return { kind: 'failed', run, error: failure };
  }
  run = withPhaseState(run, options.action, complete(run.phases[0]?.state ?? pending(), t, 'phase complete'));
  run = withPlanState(run, complete(run.state, t, Object.entries(results).map(([pod, r]) => `${pod}: ${doneMessage(options.action, targets.find((x) => x.name === pod), r)}`).join('; ')));
  await save(run);
  emit({ type: 'phase-complete', ...base, phase: options.action });
  emit({ type: 'plan-complete', ...base, run });
  return { kind: 'complete', run, results };
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
