/**
 * One reconcile of one instance: load the checkpoint, choose (selectPlan + concurrency rules), then
 * start, resume, refuse or remove; execute; prune. `baton apply` and the GitOps agent both call this.
 */
import type { KubeClient } from '../kube/client.js';
import { refLabel, refOf, type ObjectRef } from '../kube/object.js';
import type { RenderedPlan } from '../render/types.js';
import { archiveActive, emptyCheckpoint, HANDLED_REQUESTS_LIMIT, previousStateOf, type AppliedRecord, type Checkpoint, type CheckpointStore, type InstanceKey, type Refusal, type StoredCheckpoint, type TargetRecord } from './checkpoint.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import { decide, type Decision } from './concurrency.js';
import { maskingListener, safeEmitter, type EventListener } from './events.js';
import { maskerFor } from '../render/mask.js';
import { executePlan, type Execution, type ExecutorOptions, type PlanEnd } from './executor.js';
import type { EngineHooks } from './hooks.js';
import { ensureNamespace, forgetNamespace } from './namespace.js';
import { prune, removeAll, type PruneReport } from './prune.js';
import { alignRun, newRun } from './run-record.js';
import { desiredStoredValues, selectPlan, type DesiredState } from './selection.js';
import { CheckpointSession } from './session.js';
import { DEFAULT_RETRY, failureOf, retryVerdict, type RetryPolicy, type RetryVerdict } from './retry.js';
import { inProgress, type PlanRun } from './state.js';
import { changedKeys } from './values.js';
import { collectPipe } from '../compose/pipes/collect.js';
import type { ChildRunner } from '../compose/children/runner.js';

export interface ReconcileOptions {
  client: KubeClient;
  store: CheckpointStore;
  /**
   * The checkpoint as the caller has just loaded it from `store` (`stored: undefined`: there is none),
   * when nothing wrote it since: saves reading it again. Absent: loaded here. (A stale one would only
   * cost a conflict: the first write is conditional on its resourceVersion.)
   */
  loaded?: { stored: StoredCheckpoint | undefined };
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
  /** Objects the instance owns outside its inventory (generated values' Secret): deleted last on removal. */
  ownedObjects?: readonly ObjectRef[];
  /** Instance tasks (compose/children): runs a step's children; removes them after the parent's objects on removal. */
  children?: ChildRunner | undefined;
  onEvent?: EventListener;
  /**
   * The user's commit whose desired state this is: recorded in a run started now (PlanRun.sourceCommit)
   * and with the target and applied state.
   */
  sourceCommit?: string;
  /**
   * String forms of the instance's sensitive values: every message the engine keeps (checkpoint) or
   * announces (events) is masked before it leaves the engine.
   */
  sensitiveValues?: readonly string[];
  /**
   * Supersede (newer desired state, a lost lease, shutdown): the running step's applies complete, its
   * gate wait or retry backoff stops, and the reconcile returns with outcome `superseded`.
   */
  signal?: AbortSignal;
  clock?: Clock;
  /** Applies in flight per batch (default 32). */
  concurrency?: number;
  imagePullGraceSeconds?: number;
  /** Backoff between retries of a failed desired state (default 1m doubling to 1h). */
  retry?: RetryPolicy;
  /** Retry a failed desired state now, whatever its backoff says (a new commit, `baton apply`). */
  retryNow?: boolean;
}

export type ReconcileResult =
  | { kind: 'ran'; execution: Execution; resumed: boolean; warnings: string[]; pruned?: PruneReport; refusal?: Refusal }
  | { kind: 'refused'; refusal: Refusal }
  /** `retryAt`: a failed desired state waits for its backoff until then. */
  | { kind: 'nothing'; reason: string; retryAt?: string }
  | { kind: 'removed'; cleanup?: Execution; report: PruneReport };

export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  const clock = options.clock ?? systemClock;
  const mask = maskerFor(options.sensitiveValues ?? []);
  const emit = safeEmitter(maskingListener(options.onEvent, mask));
  const stored = await storedCheckpoint(options);
  const writeRetry = { hooks: options.hooks, clock, ...(options.signal ? { signal: options.signal } : {}) };
  const session = new CheckpointSession(options.store, stored?.checkpoint ?? emptyCheckpoint(options.instance, options.framework), stored?.version, emit, mask, writeRetry);
  const { decision, retry } = choose(stored?.checkpoint, options, clock.now());
  const policy = options.retry ?? DEFAULT_RETRY;
  const exec: ExecutorOptions = {
    client: options.client,
    hooks: options.hooks,
    clock,
    session,
    emit,
    concurrency: options.concurrency ?? 32,
    imagePullGraceSeconds: options.imagePullGraceSeconds ?? 120,
    mask,
    ...(options.signal ? { signal: options.signal } : {}),
    // A change-driven run records what it means for the desired state in the write that ends it.
    settle: (cp, end) => settleTarget(cp, end, clock.now(), policy),
  };

  let refusal: Refusal | undefined;
  if (decision.refusal !== undefined) {
    const r = decision.refusal;
    const saved: Refusal = { code: r.code, message: mask(r.message), details: r.details, at: isoAt(clock) };
    refusal = saved;
    if (stored !== undefined) await session.update((cp) => ({ ...cp, refusal: saved }));
    emit({ type: 'refused', instance: options.instance, refusal: saved });
  }

  /**
   * Renders first (nothing is applied when rendering fails), then records the new run and runs it.
   * `changeDriven` (the plan the change rules chose) records the desired state as the run's target;
   * any other plan (requested, scheduled, cleanup) leaves target and applied state as they were, so a
   * pending or failed change is still selected (or retried) by the next reconcile.
   */
  const start = async (planName: string, args: Record<string, string>, reason: string, requestId: string | undefined, changeDriven: boolean): Promise<{ execution: Execution; plan: RenderedPlan }> => {
    const plan = await options.render(planName, args);
    await ensureNamespace(options.client, options.instance.namespace);
    const now = isoAt(clock);
    // The new run is recorded by the write that starts it (executePlan's `prepare`).
    const record = (cp: Checkpoint): Checkpoint => {
      const previous = cp.active && cp.active.state.status !== 'COMPLETE' && cp.active.state.status !== 'FATAL_ERROR'
        ? { ...cp.active, state: inProgress(cp.active.state, now, `superseded by ${planName}`) }
        : cp.active;
      const { refusal: _dropped, ...rest } = archiveActive({ ...cp, ...(previous ? { active: previous } : {}) });
      const run = newRun(plan, reason, args, undefined, options.sourceCommit);
      return {
        ...rest,
        ...(changeDriven ? { target: targetFor(cp, run, now, options) } : {}),
        active: run,
        handledRequests: requestId ? [requestId, ...cp.handledRequests].slice(0, HANDLED_REQUESTS_LIMIT) : cp.handledRequests,
      };
    };
    const execution = await executePlan(plan, withPipes(exec, options, planName, args), false, [], record).catch((err: unknown) => {
      // The namespace may be gone since it was last seen (ensureNamespace remembers it for a while).
      forgetNamespace(options.client, options.instance.namespace);
      throw err;
    });
    if (execution.outcome === 'failed') forgetNamespace(options.client, options.instance.namespace);
    return { execution, plan };
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
      if (refusal) return { kind: 'refused', refusal };
      if (retry.kind === 'waiting') return { kind: 'nothing', reason: `the failed ${retry.plan} is retried at ${retry.until}`, retryAt: retry.until };
      return { kind: 'nothing', reason: decision.reason };
    case 'resume': {
      const plan = await options.render(decision.run.plan, decision.run.args);
      const align = (cp: Checkpoint): Checkpoint => ({ ...cp, active: alignRun(decision.run, plan) });
      return finish(await executePlan(plan, withPipes(exec, options, decision.run.plan, decision.run.args), true, [], align), plan, true, []);
    }
    case 'start': {
      const s = decision.selection;
      const { execution, plan } = await start(s.plan, s.args, s.reason, s.requestId, s.changeDriven === true);
      return finish(execution, plan, false, s.warnings);
    }
    case 'remove': {
      const empty: PruneReport = { deleted: [], skipped: [], failed: [] };
      if (stored === undefined) return { kind: 'removed', report: empty };
      let cleanup: Execution | undefined;
      if (decision.cleanupPlan !== undefined) {
        cleanup = (await start(decision.cleanupPlan, {}, decision.reason, undefined, false)).execution;
        if (cleanup.outcome !== 'complete') return { kind: 'removed', cleanup, report: empty };
      }
      const report = await removeAll(exec);
      if (report.failed.length === 0) {
        await removeOwned(options, report, emit);
        await session.remove();
      }
      return { kind: 'removed', ...(cleanup ? { cleanup } : {}), report };
    }
  }
}

/** The checkpoint as the caller loaded it, else as stored now. */
async function storedCheckpoint(options: Pick<ReconcileOptions, 'loaded' | 'store' | 'instance'>): Promise<StoredCheckpoint | undefined> {
  return options.loaded !== undefined ? options.loaded.stored : options.store.load(options.instance);
}

/** Pipe steps collect their Jobs' output into the pipe objects, then the plan is rendered again with it. */
function withPipes(exec: ExecutorOptions, options: ReconcileOptions, plan: string, args: Record<string, string>): ExecutorOptions {
  const children = options.children;
  return {
    ...exec,
    pipes: async (pipes) => {
      for (const p of pipes) await collectPipe(options.client, options.instance, p);
      return options.render(plan, args);
    },
    ...(children ? { children: (list, onProgress) => children.run(list, onProgress) } : {}),
  };
}

/**
 * After the parent's own objects: its children (Instance tasks), then what it owns outside its inventory.
 * A child another parent owns is kept, as an object another instance owns is (reported as skipped).
 */
async function removeOwned(options: ReconcileOptions, report: PruneReport, emit: EventListener): Promise<void> {
  const children = options.children ? await options.children.removeAll() : { removed: [], kept: [] };
  report.deleted.push(...children.removed.map((c) => `Instance ${c}`));
  for (const { child, owner } of children.kept) {
    report.skipped.push(`Instance ${child}`);
    emit({ type: 'prune', instance: options.instance, object: `Instance ${child}`, result: 'skipped', message: `a child of instance ${owner.instance} (its Instance task ${owner.task})` });
  }
  report.deleted.push(...(await deleteOwned(options.client, options.ownedObjects)));
}

/** Objects the instance owns outside its inventory, deleted after everything else; returns the ones that existed. */
async function deleteOwned(client: KubeClient, refs: readonly ObjectRef[] = []): Promise<string[]> {
  const deleted: string[] = [];
  for (const ref of refs) if ((await client.delete(ref)) !== undefined) deleted.push(refLabel(ref));
  return deleted;
}

/** The target of a change-driven run: the desired state; a retry of the same state keeps its failure count. */
function targetFor(cp: Checkpoint, run: PlanRun, now: string, options: Pick<ReconcileOptions, 'desired' | 'sourceCommit'>): TargetRecord {
  const state = { frameworkVersion: options.desired.frameworkVersion, frameworkHash: options.desired.frameworkHash, values: desiredStoredValues(options.desired) };
  const same = cp.target !== undefined && sameDesired(cp.target, state);
  return {
    ...state,
    plan: run.plan,
    runId: run.id,
    since: same && cp.target ? cp.target.since : now,
    ...(options.sourceCommit !== undefined ? { sourceCommit: options.sourceCommit } : {}),
    ...(same && cp.target?.failure ? { failure: cp.target.failure } : {}),
  };
}

/** The selection rules and concurrency, then a failed desired state's retry when nothing else is to run. */
function choose(cp: Checkpoint | undefined, options: ReconcileOptions, nowMs: number): { decision: Decision; retry: RetryVerdict } {
  const selection = selectPlan(previousStateOf(cp), options.desired);
  const retry: RetryVerdict = selection.kind === 'nothing' ? retryVerdict(cp, nowMs, options.retryNow === true) : { kind: 'none' };
  if (retry.kind === 'due' && options.desired.plans.includes(retry.plan)) return { decision: retryDecision(retry.plan, retry.attempts), retry };
  return { decision: decide(cp?.active, selection), retry };
}

/** A retry runs the failed target's plan again as a change-driven plan. */
function retryDecision(plan: string, attempts: number): Decision {
  return { kind: 'start', selection: { kind: 'run', plan, reason: `retry ${attempts + 1} of the failed ${plan}`, args: {}, warnings: [], changeDriven: true } };
}

/** After a change-driven run ends: COMPLETE records the target as applied; FATAL_ERROR records the failure and its next retry. */
function settleTarget(cp: Checkpoint, end: PlanEnd, nowMs: number, policy: RetryPolicy): Checkpoint {
  const run = cp.active;
  const target = cp.target;
  if (run === undefined || target === undefined || target.runId !== run.id) return cp;
  if (end.outcome === 'failed') return { ...cp, target: { ...target, failure: failureOf(target, run, end.error, nowMs, policy) } };
  const { failure: _cleared, ...done } = target;
  const applied: AppliedRecord = {
    frameworkVersion: target.frameworkVersion, frameworkHash: target.frameworkHash, values: target.values,
    at: new Date(nowMs).toISOString(), plan: run.plan, runId: run.id, ...(target.sourceCommit !== undefined ? { sourceCommit: target.sourceCommit } : {}),
  };
  return { ...cp, target: done, applied };
}

function sameDesired(a: { frameworkVersion: string; frameworkHash: string; values: Record<string, string> }, b: typeof a): boolean {
  return a.frameworkVersion === b.frameworkVersion && a.frameworkHash === b.frameworkHash && changedKeys(a.values, b.values).length === 0;
}

function applyRefs(plan: RenderedPlan): ObjectRef[] {
  return plan.phases.flatMap((p) => p.steps.flatMap((s) => s.actions.filter((a) => a.action === 'apply').map((a) => refOf(a.object))));
}
