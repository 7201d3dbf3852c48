/**
 * Repairs drift: re-applies only the drifted objects (re-creating missing ones), step by step of the
 * steps that own them, and waits at each owning step's readiness gate (its rules and timeout). A
 * repair is recorded as a run of the pseudo-plan `repair` in the checkpoint's `repair.last` (never as
 * the active run: it does not apply a new desired state) and announced through the same engine
 * events as any plan (plan-started, phase-complete, plan-complete / plan-failed), so status commits,
 * Kubernetes Events and metrics see it like any other run.
 */
import { randomUUID } from 'node:crypto';
import type { KubeClient } from '../kube/client.js';
import { refLabel } from '../kube/object.js';
import { BatonError, errorMessage } from '../errors.js';
import { runBatch, waitUntilGone } from '../plans/batch.js';
import { targetApplied, type AppliedRecord, type Checkpoint, type CheckpointStore, type InstanceKey } from '../plans/checkpoint.js';
import { isoAt, systemClock, type Clock } from '../plans/clock.js';
import { isUnfinished } from '../plans/concurrency.js';
import { safeEmitter, type EventListener } from '../plans/events.js';
import { classifyWith, type EngineHooks } from '../plans/hooks.js';
import { identityKey } from '../plans/inventory.js';
import { ensureNamespace } from '../plans/namespace.js';
import { withPhaseState, withPlanState, withStepState, stepState } from '../plans/run-record.js';
import { CheckpointSession } from '../plans/session.js';
import { complete, fatal, inProgress, pending, type FailureInfo, type PlanRun } from '../plans/state.js';
import { changedKeys } from '../plans/values.js';
import type { BatchAction } from '../render/types.js';
import { decideRepairs, DEFAULT_FIGHT, type FightSettings } from './fight.js';
import type { DesiredSet } from './sweep.js';
import type { DesiredObject, DriftedObject } from './types.js';

export const REPAIR_PLAN = 'repair';
const PHASE = 'repair';

export interface RepairOptions {
  client: KubeClient;
  hooks: EngineHooks;
  store: CheckpointStore;
  instance: InstanceKey;
  /** What the sweep found (objects with action `repair` are re-applied, unless held back by a fight). */
  drifted: readonly DriftedObject[];
  desired: DesiredSet;
  /** The framework version the desired state is at (recorded on the run). */
  frameworkVersion: string;
  clock?: Clock;
  /** Newer desired state or shutdown: the running step's applies finish, its wait stops. */
  signal?: AbortSignal;
  onEvent?: EventListener;
  fight?: FightSettings;
  concurrency?: number;
  /**
   * The applied state the drift check decided the repair for (the checkpoint's `applied` as the sweep
   * read it). A repair waits for the instance's worker: when it runs, the applied state may have moved
   * on (a plan of a newer commit ran first, here or on another shard member); then what it found is stale.
   */
  decidedFor?: AppliedRecord;
}

export type RepairResult =
  | { kind: 'complete'; run: PlanRun; repaired: DriftedObject[]; heldBack: HeldBack[] }
  | { kind: 'failed'; run: PlanRun; error: FailureInfo; repaired: DriftedObject[]; heldBack: HeldBack[] }
  | { kind: 'superseded'; run: PlanRun; repaired: DriftedObject[]; heldBack: HeldBack[] }
  /** Nothing was repaired: nothing to do, every object held back by a fight, or a plan took over. */
  | { kind: 'skipped'; reason: string; heldBack: HeldBack[]; outdated?: true };

export type HeldBack = ReturnType<typeof decideRepairs>['heldBack'][number];

interface StepGroup {
  name: string;
  timeoutSeconds: number;
  objects: { drifted: DriftedObject; desired: DesiredObject }[];
}

export async function repair(options: RepairOptions): Promise<RepairResult> {
  const clock = options.clock ?? systemClock;
  const emit = safeEmitter(options.onEvent);
  const stored = await options.store.load(options.instance);
  if (stored === undefined) return { kind: 'skipped', reason: 'no checkpoint', heldBack: [] };
  const cp = stored.checkpoint;
  // A plan started meanwhile (or the desired state failed): the plan is what moves the cluster now.
  if (isUnfinished(cp.active) || !targetApplied(cp)) return { kind: 'skipped', reason: 'a plan owns the instance now', heldBack: [] };
  // Decided for another applied state, or about to apply another desired state than the applied one: a
  // plan ran since the check. Nothing is applied or recorded (no false repair in Git); the next check decides again.
  const moved = movedOn(cp, options.desired.state, options.decidedFor);
  if (moved !== undefined) return { kind: 'skipped', reason: moved, heldBack: [], outdated: true };
  const decision = decideRepairs(options.drifted, cp.repair?.fights ?? [], clock.now(), options.fight ?? DEFAULT_FIGHT);
  const groups = stepGroups(decision.repair, options.desired);
  const session = new CheckpointSession(options.store, cp, stored.version, emit);
  if (groups.length === 0) {
    // Only held-back objects: record the fight so the status and the next sweep know about it.
    if (decision.heldBack.length > 0) await session.update((c) => ({ ...c, repair: { ...(c.repair ?? {}), fights: decision.fights } }));
    return { kind: 'skipped', reason: decision.heldBack.length > 0 ? 'every drifted object is held back by a fight' : 'nothing to repair', heldBack: decision.heldBack };
  }
  const repaired = groups.flatMap((g) => g.objects.map((o) => o.drifted));
  const now = isoAt(clock);
  let run: PlanRun = {
    id: randomUUID(),
    plan: REPAIR_PLAN,
    reason: `drift: ${repaired.map(describe).join(', ')}`.slice(0, 500),
    args: {},
    frameworkVersion: options.frameworkVersion,
    strategy: 'serial',
    state: inProgress(pending(), now, 'repairing'),
    phases: [{ name: PHASE, strategy: 'serial', state: inProgress(pending(), now, 'repairing'), steps: groups.map((g) => ({ name: g.name, state: pending() })) }],
  };
  const objects = repaired.map(describe);
  const save = (r: PlanRun): Promise<void> => session.update((c) => ({ ...c, repair: { last: r, objects, fights: decision.fights } }));
  await save(run);
  const base = { instance: options.instance, runId: run.id, plan: REPAIR_PLAN };
  emit({ type: 'plan-started', ...base, run, resumed: false, warnings: [] });
  emit({ type: 'phase-started', ...base, phase: PHASE });

  for (const g of groups) {
    if (options.signal?.aborted === true) {
      run = withPlanState(run, inProgress(run.state, isoAt(clock), 'superseded (newer desired state or shutdown)'));
      await save(run);
      emit({ type: 'plan-superseded', ...base, run });
      return { kind: 'superseded', run, repaired, heldBack: decision.heldBack };
    }
    const at = { ...base, phase: PHASE, step: g.name };
    run = withStepState(run, PHASE, g.name, inProgress(stepState(run, PHASE, g.name), isoAt(clock), `repairing ${g.objects.length} objects`));
    await save(run);
    emit({ type: 'step-started', ...at, objects: g.objects.length, attempt: 0 });
    const outcome = await repairStep(g, options, clock);
    if (outcome.kind === 'superseded') {
      run = withPlanState(run, inProgress(run.state, isoAt(clock), 'superseded (newer desired state or shutdown)'));
      await save(run);
      emit({ type: 'plan-superseded', ...base, run });
      return { kind: 'superseded', run, repaired, heldBack: decision.heldBack };
    }
    if (outcome.kind === 'failed') {
      const t = isoAt(clock);
      run = withStepState(run, PHASE, g.name, fatal(stepState(run, PHASE, g.name), t, outcome.error));
      run = withPhaseState(run, PHASE, fatal(run.phases[0]?.state ?? pending(), t, outcome.error));
      run = withPlanState(run, fatal(run.state, t, outcome.error));
      await save(run);
      emit({ type: 'step-failed', ...at, error: outcome.error });
      emit({ type: 'plan-failed', ...base, run, error: outcome.error });
      return { kind: 'failed', run, error: outcome.error, repaired, heldBack: decision.heldBack };
    }
    run = withStepState(run, PHASE, g.name, complete(stepState(run, PHASE, g.name), isoAt(clock), `${g.objects.length} re-applied`));
    await save(run);
    emit({ type: 'step-complete', ...at, applied: g.objects.length, deleted: 0, objects: outcome.live });
  }
  const t = isoAt(clock);
  run = withPhaseState(run, PHASE, complete(run.phases[0]?.state ?? pending(), t, 'phase complete'));
  run = withPlanState(run, complete(run.state, t, `repaired ${repaired.length} object${repaired.length === 1 ? '' : 's'}`));
  await save(run);
  emit({ type: 'phase-complete', ...base, phase: PHASE });
  emit({ type: 'plan-complete', ...base, run });
  return { kind: 'complete', run, repaired, heldBack: decision.heldBack };
}

/** Why the repair no longer fits the instance's applied state, if it does not. */
function movedOn(cp: Checkpoint, state: DesiredSet['state'], decidedFor: AppliedRecord | undefined): string | undefined {
  const applied = cp.applied;
  if (applied === undefined) return 'no desired state is applied';
  if (decidedFor !== undefined && applied.runId !== decidedFor.runId) {
    return `the applied state moved on since the drift check (run ${applied.runId ?? '?'}${applied.sourceCommit ? ` at ${applied.sourceCommit.slice(0, 12)}` : ''}, the check saw run ${decidedFor.runId ?? '?'})`;
  }
  const same = applied.frameworkVersion === state.frameworkVersion && applied.frameworkHash === state.frameworkHash && changedKeys(applied.values, state.values).length === 0;
  return same ? undefined : 'the applied state is not the desired state the repair would apply (a plan applied a newer one)';
}

/** `Service shop/web missing`, `Deployment shop/web .spec.replicas`. */
export function describe(d: DriftedObject): string {
  if (d.reason.kind === 'changed') return `${d.object} ${d.reason.fields.slice(0, 3).join(', ')}${d.reason.fields.length > 3 ? ', ...' : ''}`;
  return `${d.object} ${d.reason.kind}`;
}

/** Drifted objects grouped by the step that owns them (plan/phase/step), in render order. */
function stepGroups(drifted: readonly DriftedObject[], desired: DesiredSet): StepGroup[] {
  const groups = new Map<string, StepGroup>();
  for (const d of drifted) {
    const candidates = desired.objects.get(identityKey(d.ref));
    const owner = candidates?.find((c) => c.object.apiVersion === d.ref.apiVersion) ?? candidates?.[0];
    if (owner === undefined) continue;
    const name = `${owner.plan}/${owner.phase}/${owner.step}`;
    const g = groups.get(name) ?? { name, timeoutSeconds: owner.timeoutSeconds, objects: [] };
    g.objects.push({ drifted: d, desired: owner });
    groups.set(name, g);
  }
  return [...groups.values()];
}

type StepOutcome = { kind: 'complete'; live: { apiVersion: string; kind: string; name: string; namespace?: string; uid?: string }[] } | { kind: 'failed'; error: FailureInfo } | { kind: 'superseded' };

/** One owning step: wait out deletions others started, re-create the namespace if needed, apply, gate. */
async function repairStep(g: StepGroup, options: RepairOptions, clock: Clock): Promise<StepOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new BatonError('STEP_TIMEOUT', `repair of step ${g.name} did not finish within ${g.timeoutSeconds}s`, { step: g.name })), g.timeoutSeconds * 1000);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  try {
    const deleting = g.objects.filter((o) => o.drifted.reason.kind === 'deleting').map((o) => o.drifted.ref);
    if (deleting.length > 0) await waitUntilGone(deleting, { client: options.client, clock, hooks: options.hooks, signal, onWaiting: () => undefined });
    const namespaces = new Set(g.objects.map((o) => o.drifted.ref.namespace).filter((n): n is string => n !== undefined));
    for (const ns of namespaces) await ensureNamespace(options.client, ns);
    const actions: BatchAction[] = g.objects.map((o) => ({
      action: 'apply', object: o.desired.object, task: 'repair', template: '', force: o.desired.force, ...(o.desired.noForce ? { noForce: true as const } : {}),
    }));
    const result = await runBatch(actions, {
      client: options.client, hooks: options.hooks, clock, signal: deadline.signal, ...(options.signal ? { supersede: options.signal } : {}),
      concurrency: options.concurrency ?? 32, rules: options.desired.rules, imagePullGraceSeconds: 120, onWaiting: () => undefined,
    });
    if (result.kind === 'superseded') return { kind: 'superseded' };
    return { kind: 'complete', live: result.outcome.live };
  } catch (err) {
    if (options.signal?.aborted === true && !deadline.signal.aborted) return { kind: 'superseded' };
    const cls = classifyWith(options.hooks, deadline.signal.aborted ? deadline.signal.reason : err);
    const object = err instanceof BatonError && typeof err.context['object'] === 'string' ? err.context['object'] : undefined;
    return { kind: 'failed', error: { code: err instanceof BatonError ? err.code : cls.reason, message: deadline.signal.aborted ? errorMessage(deadline.signal.reason) : errorMessage(err), ...(object ? { object } : g.objects[0] ? { object: refLabel(g.objects[0].drifted.ref) } : {}) } };
  } finally {
    clearTimeout(timer);
  }
}
