/**
 * One reconcile of one instance: load the checkpoint, choose (selectPlan + concurrency rules), then
 * start, resume, refuse or remove; execute; prune. `baton apply` and the GitOps agent both call this.
 */
import type { KubeClient } from '../kube/client.js';
import { refOf, type ObjectRef } from '../kube/object.js';
import type { RenderedPlan } from '../render/types.js';
import { archiveActive, emptyCheckpoint, HANDLED_REQUESTS_LIMIT, previousStateOf, type CheckpointStore, type InstanceKey, type Refusal } from './checkpoint.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import { decide } from './concurrency.js';
import { safeEmitter, type EventListener } from './events.js';
import { executePlan, type Execution, type ExecutorOptions } from './executor.js';
import type { EngineHooks } from './hooks.js';
import { ensureNamespace } from './namespace.js';
import { prune, removeAll, type PruneReport } from './prune.js';
import { alignRun, newRun } from './run-record.js';
import { desiredStoredValues, selectPlan, type DesiredState } from './selection.js';
import { CheckpointSession } from './session.js';
import { inProgress } from './state.js';

export interface ReconcileOptions {
  client: KubeClient;
  store: CheckpointStore;
  hooks: EngineHooks;
  instance: InstanceKey;
  framework: string;
  desired: DesiredState;
  /** Renders a plan with the desired values (and one-shot args). Called before anything is applied. */
  render(plan: string, args: Record<string, string>): Promise<RenderedPlan>;
  /**
   * Every object the instance renders now across its lifecycle plans (deploy, update, upgrade), for
   * pruning, in addition to the completed plan's own Apply objects.
   */
  renderedObjects?(): Promise<ObjectRef[]>;
  onEvent?: EventListener;
  /** The commit whose desired state this is: recorded in a run started now (PlanRun.sourceCommit). */
  sourceCommit?: string;
  /**
   * Supersede (newer desired state, a lost lease, shutdown): the running step's applies complete, its
   * gate wait or retry backoff stops, and the reconcile returns with outcome `superseded`.
   */
  signal?: AbortSignal;
  clock?: Clock;
  /** Applies in flight per batch (default 32). */
  concurrency?: number;
  imagePullGraceSeconds?: number;
}

export type ReconcileResult =
  | { kind: 'ran'; execution: Execution; resumed: boolean; warnings: string[]; pruned?: PruneReport; refusal?: Refusal }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'nothing'; reason: string }
  | { kind: 'removed'; cleanup?: Execution; report: PruneReport };

export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  const clock = options.clock ?? systemClock;
  const emit = safeEmitter(options.onEvent);
  const stored = await options.store.load(options.instance);
  const retry = { hooks: options.hooks, clock, ...(options.signal ? { signal: options.signal } : {}) };
  const session = new CheckpointSession(options.store, stored?.checkpoint ?? emptyCheckpoint(options.instance, options.framework), stored?.version, emit, retry);
  const decision = decide(session.checkpoint.active, selectPlan(previousStateOf(stored?.checkpoint), options.desired));
  const exec: ExecutorOptions = {
    client: options.client,
    hooks: options.hooks,
    clock,
    session,
    emit,
    concurrency: options.concurrency ?? 32,
    imagePullGraceSeconds: options.imagePullGraceSeconds ?? 120,
    ...(options.signal ? { signal: options.signal } : {}),
  };

  let refusal: Refusal | undefined;
  if (decision.refusal !== undefined) {
    const r = decision.refusal;
    const saved: Refusal = { code: r.code, message: r.message, details: r.details, at: isoAt(clock) };
    refusal = saved;
    if (stored !== undefined) await session.update((cp) => ({ ...cp, refusal: saved }));
    emit({ type: 'refused', instance: options.instance, refusal: saved });
  }

  /**
   * Renders first (nothing is applied when rendering fails), then records the new run and runs it.
   * `recordsApplied` false (an explicitly requested plan the change rules did not choose) leaves the
   * applied state as it was, so the pending change is still selected by the next reconcile.
   */
  const start = async (planName: string, args: Record<string, string>, reason: string, requestId: string | undefined, recordsApplied: boolean): Promise<{ execution: Execution; plan: RenderedPlan }> => {
    const plan = await options.render(planName, args);
    await ensureNamespace(options.client, options.instance.namespace);
    const now = isoAt(clock);
    await session.update((cp) => {
      const previous = cp.active && cp.active.state.status !== 'COMPLETE' && cp.active.state.status !== 'FATAL_ERROR'
        ? { ...cp.active, state: inProgress(cp.active.state, now, `superseded by ${planName}`) }
        : cp.active;
      const { refusal: _dropped, ...rest } = archiveActive({ ...cp, ...(previous ? { active: previous } : {}) });
      return {
        ...rest,
        ...(recordsApplied ? { applied: { frameworkVersion: options.desired.frameworkVersion, frameworkHash: options.desired.frameworkHash, values: desiredStoredValues(options.desired) } } : {}),
        active: newRun(plan, reason, args, undefined, options.sourceCommit),
        handledRequests: requestId ? [requestId, ...cp.handledRequests].slice(0, HANDLED_REQUESTS_LIMIT) : cp.handledRequests,
      };
    });
    return { execution: await executePlan(plan, exec, false), plan };
  };

  const finish = async (execution: Execution, plan: RenderedPlan, resumed: boolean, warnings: string[]): Promise<ReconcileResult> => {
    const result = { kind: 'ran' as const, execution, resumed, warnings, ...(refusal ? { refusal } : {}) };
    if (execution.outcome !== 'complete') return result;
    // What the plan just applied is rendered by definition; the lifecycle render adds what other plans keep.
    const rendered = [...applyRefs(plan), ...(options.renderedObjects ? await options.renderedObjects() : [])];
    return { ...result, pruned: await prune(exec, plan.plan, rendered) };
  };

  switch (decision.kind) {
    case 'idle':
      return refusal ? { kind: 'refused', refusal } : { kind: 'nothing', reason: decision.reason };
    case 'resume': {
      const plan = await options.render(decision.run.plan, decision.run.args);
      await session.update((cp) => ({ ...cp, active: alignRun(decision.run, plan) }));
      return finish(await executePlan(plan, exec, true), plan, true, []);
    }
    case 'start': {
      const s = decision.selection;
      const { execution, plan } = await start(s.plan, s.args, s.reason, s.requestId, s.explicitOnly !== true);
      return finish(execution, plan, false, s.warnings);
    }
    case 'remove': {
      const empty: PruneReport = { deleted: [], skipped: [], failed: [] };
      if (stored === undefined) return { kind: 'removed', report: empty };
      let cleanup: Execution | undefined;
      if (decision.cleanupPlan !== undefined) {
        cleanup = (await start(decision.cleanupPlan, {}, decision.reason, undefined, true)).execution;
        if (cleanup.outcome !== 'complete') return { kind: 'removed', cleanup, report: empty };
      }
      const report = await removeAll(exec);
      if (report.failed.length === 0) await session.remove();
      return { kind: 'removed', ...(cleanup ? { cleanup } : {}), report };
    }
  }
}

function applyRefs(plan: RenderedPlan): ObjectRef[] {
  return plan.phases.flatMap((p) => p.steps.flatMap((s) => s.actions.filter((a) => a.action === 'apply').map((a) => refOf(a.object))));
}
