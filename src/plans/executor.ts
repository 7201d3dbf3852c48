/**
 * The executor: runs a RenderedPlan against a KubeClient, phase by phase and step by step under
 * their strategies, checkpointing every transition through the session so a killed process resumes
 * where it was and never re-runs a completed step. An aborted `signal` supersedes the plan: the
 * running step's applies finish, its waits (readiness gate, retry backoff) end at once without
 * failing it, and nothing after it starts.
 */
import type { KubeClient } from '../kube/client.js';
import { refLabel, refOf } from '../kube/object.js';
import { BatonError } from '../errors.js';
import type { RenderedChild, RenderedPhase, RenderedPipe, RenderedPlan, RenderedStep } from '../render/types.js';
import { runBatch } from './batch.js';
import { checkOwnership } from './owner-check.js';
import { ownerValue } from '../render/labels.js';
import { isoAt, type Clock } from './clock.js';
import { StepTimeoutError } from './errors.js';
import type { EngineEvent, EventListener } from './events.js';
import { classifyWith, type EngineHooks } from './hooks.js';
import { Inventory } from './inventory.js';
import { phaseState, stepState, withPhaseState, withPlanState, withStepState } from './run-record.js';
import type { Checkpoint } from './checkpoint.js';
import type { CheckpointSession } from './session.js';
import { complete, errored, fatal, inProgress, startedAtOf, type CanaryWait, type FailureInfo, type PlanRun } from './state.js';
import type { Strategy } from '../render/types.js';
import type { ChildProgress } from '../compose/children/runner.js';

export interface ExecutorOptions {
  client: KubeClient;
  hooks: EngineHooks;
  clock: Clock;
  session: CheckpointSession;
  emit: EventListener;
  /** Supersede: finish the running step's applies, stop its waits, start nothing more. */
  signal?: AbortSignal;
  concurrency: number;
  imagePullGraceSeconds: number;
  /** Hides sensitive values in failure messages (API errors may quote them). */
  mask?: (text: string) => string;
  /**
   * Folded into the checkpoint write that ends the plan (COMPLETE or FATAL_ERROR), so whoever sees the
   * plan end also sees what it means for the desired state (reconcile records `applied` or the failure).
   */
  settle?: (cp: Checkpoint, end: PlanEnd) => Checkpoint;
  /**
   * Pipe tasks (docs/composition.md): called when a step with pipes is ready; collects their Jobs'
   * output and returns the plan rendered again with it, so later steps read `pipes.<task>` (the plan's
   * structure is the same; only objects change). Throwing fails the step.
   */
  pipes?: (pipes: readonly RenderedPipe[]) => Promise<RenderedPlan>;
  /** Instance tasks: runs the step's child instances to completion and health; returns a line for the step's message. Throwing fails the step. */
  children?: (children: readonly RenderedChild[], onProgress: ChildProgress) => Promise<string>;
}

export type PlanEnd = { outcome: 'complete' } | { outcome: 'failed'; error: FailureInfo };

export type Execution =
  | { outcome: 'complete'; run: PlanRun }
  | { outcome: 'failed'; run: PlanRun; error: FailureInfo }
  | { outcome: 'superseded'; run: PlanRun }
  /** A canary strategy waits for `baton plan continue` (the run's state is WAITING). */
  | { outcome: 'waiting'; run: PlanRun; waits: CanaryWait[] };

type Result = { kind: 'complete' } | { kind: 'superseded' } | { kind: 'failed'; error: FailureInfo } | { kind: 'waiting'; waits: CanaryWait[] };

/**
 * `prepare`: the change that makes the run to execute the checkpoint's active one (a new run recorded,
 * a resumed one aligned with the plan rendered again), folded into the write that starts it.
 */
export async function executePlan(plan: RenderedPlan, opts: ExecutorOptions, resumed: boolean, warnings: string[] = [], prepare?: CheckpointChange): Promise<Execution> {
  const x = new Execution_(plan, opts);
  return x.run(resumed, warnings, prepare);
}

type CheckpointChange = (cp: Checkpoint) => Checkpoint;

/**
 * `change` computed once per checkpoint it is given: a new run's record draws its id when made, and
 * the executor asks for the active run (through its pending changes) before the write that saves it.
 */
function once(change: CheckpointChange): CheckpointChange {
  const made = new WeakMap<Checkpoint, Checkpoint>();
  return (cp) => {
    const known = made.get(cp);
    if (known !== undefined) return known;
    const next = change(cp);
    made.set(cp, next);
    return next;
  };
}

class Execution_ {
  /**
   * Changes written with the next checkpoint write, not on their own: the start of a phase (its first
   * step's start follows) and the completion of a step (the next step's start or the phase's end
   * follows). Nothing reaches the cluster between such a change and the write that carries it, so a
   * crash in between leaves the same state to resume from as a crash just before the change; one write
   * instead of two per step (docs/internals/benchmarks.md). The plan's start rides with its first
   * step's start, and the last phase's end with the plan's end, for the same reason (issue #20: 3
   * writes for a plan of two steps instead of 5). A step's start (its inventory, before its applies)
   * and every other transition are written at once.
   */
  private pending: CheckpointChange[] = [];
  /**
   * Events about changes still in `pending` (plan started, the phases started after it, a step's end
   * when no other step runs, the last phase complete): emitted, in order, right after the write that carries them, so a listener that
   * reads the checkpoint (the status reporter) finds them there. Later events queue behind them.
   */
  private deferred: EngineEvent[] = [];
  /** Steps running now: more than one in a parallel phase. */
  private inFlight = 0;

  constructor(
    /** Replaced when a Pipe step re-renders it (same phases and steps, new objects). */
    private plan: RenderedPlan,
    private readonly o: ExecutorOptions,
  ) {}

  /** What every event of the run names (its id once the run is in the checkpoint). */
  private get base(): { instance: RenderedPlan['instance']; runId: string; plan: string } {
    return { instance: this.plan.instance, runId: this.active().id, plan: this.plan.plan };
  }

  /** The active run as the next write will save it (the pending changes on the last saved checkpoint). */
  private active(): PlanRun {
    const run = this.pending.reduce((c, next) => next(c), this.o.session.checkpoint).active;
    if (run === undefined) throw new BatonError('ENGINE_NO_RUN', 'the checkpoint has no active run to execute');
    return run;
  }

  /** The active run as last saved (pending changes left out). */
  private saved(): PlanRun {
    const run = this.o.session.checkpoint.active;
    if (run === undefined) throw new BatonError('ENGINE_NO_RUN', 'the checkpoint has no active run to execute');
    return run;
  }

  private async mutate(change: (run: PlanRun) => PlanRun, inventory?: (inv: Inventory) => Inventory): Promise<void> {
    await this.o.session.update((cp) => this.withPending(cp, change, inventory));
    this.flushDeferred();
  }

  /** `change` written with the next checkpoint write (see `pending`). */
  private later(change: (run: PlanRun) => PlanRun, inventory?: (inv: Inventory) => Inventory): void {
    this.pending.push((cp) => applyChange(cp, (run) => change(run ?? this.saved()), inventory));
  }

  /** Emits `event` now, or after the next write when events about pending changes wait for it (order kept). */
  private emitInOrder(event: EngineEvent): void {
    if (this.deferred.length > 0) this.deferred.push(event);
    else this.o.emit(event);
  }

  /** Emits `event` after the next write (it is about a pending change). */
  private emitAfterWrite(event: EngineEvent): void {
    this.deferred.push(event);
  }

  private flushDeferred(): void {
    const events = this.deferred;
    this.deferred = [];
    for (const e of events) this.o.emit(e);
  }

  /** The pending changes, then `change`, on `cp`; the pending ones are taken (the write carries them). */
  private withPending(cp: Checkpoint, change: (run: PlanRun) => PlanRun, inventory?: (inv: Inventory) => Inventory): Checkpoint {
    const pending = this.pending;
    this.pending = [];
    return applyChange(pending.reduce((c, next) => next(c), cp), (run) => change(run ?? this.active()), inventory);
  }

  /** The plan's final state, with `settle` folded into the same checkpoint write. */
  private async end(change: (run: PlanRun) => PlanRun, end: PlanEnd): Promise<void> {
    await this.o.session.update((cp) => {
      const next = this.withPending(cp, change);
      return this.o.settle ? this.o.settle(next, end) : next;
    });
    this.flushDeferred();
  }

  private now(): string {
    return isoAt(this.o.clock);
  }

  async run(resumed: boolean, warnings: string[], prepare: CheckpointChange | undefined): Promise<Execution> {
    if (prepare) this.pending.push(once(prepare));
    // Written with the first step's start (or whatever write comes first): nothing reaches the cluster before it.
    const startedAt = this.now();
    this.later((r) => withPlanState(r, inProgress(r.state, startedAt, resumed ? 'resumed' : 'running')));
    const started = this.active();
    this.emitAfterWrite({ type: 'plan-started', instance: this.plan.instance, runId: started.id, plan: this.plan.plan, run: started, resumed, warnings });
    const results = await this.ordered(this.plan.strategy, this.plan.phases, (p) => this.runPhase(p), this.active().continued ?? 0, undefined);
    const failure = results.find((r): r is Extract<Result, { kind: 'failed' }> => r.kind === 'failed');
    if (failure !== undefined) {
      await this.end((r) => withPlanState(r, fatal(r.state, this.now(), failure.error)), { outcome: 'failed', error: failure.error });
      const run = this.active();
      this.emitInOrder({ type: 'plan-failed', ...this.base, run, error: failure.error });
      return { outcome: 'failed', run, error: failure.error };
    }
    if (results.some((r) => r.kind === 'superseded')) {
      await this.mutate((r) => withPlanState(r, inProgress(r.state, this.now(), 'superseded (newer desired state or shutdown) after the running step\'s applies')));
      const run = this.active();
      this.emitInOrder({ type: 'plan-superseded', ...this.base, run });
      return { outcome: 'superseded', run };
    }
    const waits = results.flatMap((r) => (r.kind === 'waiting' ? r.waits : []));
    if (waits.length > 0) {
      const now = this.now();
      await this.mutate((r) => withPlanState(r, { status: 'WAITING', startedAt: startedAtOf(r.state, now), since: now, message: 'waiting for baton plan continue (canary)', waits }));
      const run = this.active();
      this.emitInOrder({ type: 'plan-waiting', ...this.base, run, waits });
      return { outcome: 'waiting', run, waits };
    }
    await this.end((r) => withPlanState(r, complete(r.state, this.now(), 'plan complete')), { outcome: 'complete' });
    const run = this.active();
    this.emitInOrder({ type: 'plan-complete', ...this.base, run });
    return { outcome: 'complete', run };
  }

  /**
   * Runs phases or steps under their strategy. The canary strategies (DC/OS): the first item runs,
   * then the run waits until one `baton plan continue` was received (`continued`); the second runs and
   * waits for the second continue; then the rest, serially or in parallel. A wait is only made when
   * another item follows. On resume, completed items return at once, so the counts decide where it is.
   */
  private async ordered<T extends { name: string }>(strategy: Strategy, items: readonly T[], each: (item: T) => Promise<Result>, continued: number, phase: string | undefined): Promise<Result[]> {
    if (strategy === 'parallel') return Promise.all(items.map(each));
    if (strategy !== 'serial-canary' && strategy !== 'parallel-canary') return this.serial(items, each);
    const out: Result[] = [];
    const canaries = Math.min(2, items.length);
    for (let i = 0; i < canaries; i++) {
      const item = items[i]!;
      const r = await each(item);
      out.push(r);
      if (r.kind !== 'complete') return out;
      if (continued < i + 1 && i + 1 < items.length) return [...out, { kind: 'waiting', waits: [{ ...(phase !== undefined ? { phase } : {}), after: item.name, continues: i + 1 }] }];
    }
    const rest = items.slice(canaries);
    return [...out, ...(strategy === 'parallel-canary' ? await Promise.all(rest.map(each)) : await this.serial(rest, each))];
  }

  private async serial<T>(items: readonly T[], each: (item: T) => Promise<Result>): Promise<Result[]> {
    const out: Result[] = [];
    for (const item of items) {
      const r = await each(item);
      out.push(r);
      if (r.kind !== 'complete') break;
    }
    return out;
  }

  private async runPhase(phase: RenderedPhase): Promise<Result> {
    if (phaseState(this.active(), phase.name).status === 'COMPLETE') return { kind: 'complete' };
    if (this.isSuperseded()) return { kind: 'superseded' };
    const startedAt = this.now();
    this.later((r) => withPhaseState(r, phase.name, inProgress(phaseState(r, phase.name), startedAt, 'running')));
    this.emitInOrder({ type: 'phase-started', ...this.base, phase: phase.name });
    // The step as the plan renders it now: a Pipe step before it may have re-rendered the plan.
    const each = (s: RenderedStep): Promise<Result> => this.runStep(phase, this.currentStep(phase.name, s.name) ?? s);
    const continued = this.active().phases.find((p) => p.name === phase.name)?.continued ?? 0;
    const results = await this.ordered(phase.strategy, phase.steps, each, continued, phase.name);
    const failure = results.find((r): r is Extract<Result, { kind: 'failed' }> => r.kind === 'failed');
    if (failure !== undefined) {
      await this.mutate((r) => withPhaseState(r, phase.name, fatal(phaseState(r, phase.name), this.now(), failure.error)));
      this.emitInOrder({ type: 'phase-failed', ...this.base, phase: phase.name });
      return failure;
    }
    if (results.some((r) => r.kind === 'superseded')) return { kind: 'superseded' };
    const waits = results.flatMap((r) => (r.kind === 'waiting' ? r.waits : []));
    if (waits.length > 0) return { kind: 'waiting', waits };
    const finishedAt = this.now();
    const done = (r: PlanRun): PlanRun => withPhaseState(r, phase.name, complete(phaseState(r, phase.name), finishedAt, 'phase complete'));
    const event: EngineEvent = { type: 'phase-complete', ...this.base, phase: phase.name };
    // The last phase to end: the plan's end follows with nothing applied in between, so they share one write.
    if (this.plan.phases.every((p) => p.name === phase.name || phaseState(this.active(), p.name).status === 'COMPLETE')) {
      this.later(done);
      this.emitAfterWrite(event);
      return { kind: 'complete' };
    }
    await this.mutate(done);
    this.emitInOrder(event);
    return { kind: 'complete' };
  }

  private async runStep(phase: RenderedPhase, step: RenderedStep): Promise<Result> {
    this.inFlight++;
    try {
      return await this.executeStep(phase, step);
    } finally {
      this.inFlight--;
    }
  }

  private async executeStep(phase: RenderedPhase, step: RenderedStep): Promise<Result> {
    const at = { ...this.base, phase: phase.name, step: step.name };
    const before = stepState(this.active(), phase.name, step.name);
    if (before.status === 'COMPLETE') return { kind: 'complete' };
    if (this.isSuperseded()) return { kind: 'superseded' };
    // A resumed step keeps its start time, so its timeout counts across restarts.
    const startedAt = startedAtOf(before, this.now());
    const deadline = Date.parse(startedAt) + step.timeoutSeconds * 1000;
    const applied = step.actions.filter((a) => a.action === 'apply').map((a) => refOf(a.object));
    // Record the objects before touching the cluster: a crash mid-apply must not leak untracked objects.
    await this.mutate(
      (r) => withStepState(r, phase.name, step.name, { status: 'IN_PROGRESS', startedAt, message: `applying ${step.actions.length} objects` }),
      (inv) => inv.with(applied, this.plan.plan),
    );
    let lastWait: string | undefined;
    for (let attempt = 0; ; attempt++) {
      // A supersede during the retry backoff stops here, before the next attempt.
      // A superseded step is not a failure: it keeps its IN_PROGRESS or ERROR state (and start time) for
      // the run that resumes or supersedes it.
      if (this.isSuperseded()) return { kind: 'superseded' };
      this.emitInOrder({ type: 'step-started', ...at, objects: step.actions.length, attempt });
      const remaining = deadline - this.o.clock.now();
      const deadlineCtl = new AbortController();
      void this.o.clock.sleep(Math.max(0, remaining), deadlineCtl.signal).then(
        () => deadlineCtl.abort(new StepTimeoutError(step.name, step.timeoutSeconds, lastWait)),
        () => undefined,
      );
      try {
        if (remaining <= 0) throw new StepTimeoutError(step.name, step.timeoutSeconds, lastWait);
        // Nothing of the step is applied when one of its objects belongs to another instance.
        const absentBefore = await checkOwnership(this.o.client, step.actions, ownerValue(this.plan.instance), this.o.concurrency);
        const batch = await runBatch(step.actions, {
          absentBefore,
          client: this.o.client,
          hooks: this.o.hooks,
          clock: this.o.clock,
          signal: deadlineCtl.signal,
          ...(this.o.signal ? { supersede: this.o.signal } : {}),
          concurrency: this.o.concurrency,
          rules: this.plan.readiness,
          imagePullGraceSeconds: this.o.imagePullGraceSeconds,
          onWaiting: (object, message) => {
            lastWait = `${object}: ${message}`;
            this.emitInOrder({ type: 'step-waiting', ...at, object, message });
          },
        });
        if (batch.kind === 'superseded') {
          deadlineCtl.abort();
          return { kind: 'superseded' };
        }
        if (step.pipes !== undefined && this.o.pipes) this.plan = await this.o.pipes(step.pipes);
        // A step with children and nobody to run them (an instance loaded without a cluster) must not
        // complete as if they existed.
        if (step.children !== undefined && step.children.length > 0 && !this.o.children) {
          throw new BatonError('CHILD_NO_CLUSTER', `step ${phase.name}/${step.name} has Instance tasks (${step.children.map((c) => c.name).join(', ')}) but the instance was loaded without a cluster to run children in`, {});
        }
        // While a child runs, the step says what it waits on (its checkpoint message and a step-waiting
        // event): `baton plan status` of the parent names the child and its plan's progress.
        const childLine = step.children !== undefined && this.o.children
          ? `; ${await this.o.children(step.children, async (object, message) => {
            lastWait = `${object}: ${message}`;
            await this.mutate((r) => withStepState(r, phase.name, step.name, inProgress(stepState(r, phase.name, step.name), this.now(), `waiting on ${object}: ${message}`)));
            this.emitInOrder({ type: 'step-waiting', ...at, object, message });
          })}`
          : '';
        deadlineCtl.abort();
        const { outcome } = batch;
        const finishedAt = this.now();
        const done = (r: PlanRun): PlanRun => withStepState(r, phase.name, step.name, complete(stepState(r, phase.name, step.name), finishedAt, `${outcome.applied.length} applied, ${outcome.deleted.length} deleted${leftText(outcome.leftToOthers)}${childLine}`));
        const event: EngineEvent = { type: 'step-complete', ...at, applied: outcome.applied.length, deleted: outcome.deleted.length, objects: outcome.live };
        if (this.inFlight > 1) {
          // Sibling steps still run (a parallel phase): the next write may be far off, and their events
          // would queue behind this one until then.
          await this.mutate(done, (inv) => inv.without(outcome.deleted));
          this.emitInOrder(event);
        } else {
          // Reported only after the write that carries it: a step printed COMPLETE (or an Event saying
          // so) is never started again after a crash.
          this.later(done, (inv) => inv.without(outcome.deleted));
          this.emitAfterWrite(event);
        }
        return { kind: 'complete' };
      } catch (err) {
        deadlineCtl.abort();
        const cls = classifyWith(this.o.hooks, err);
        const raw = failureInfo(err, cls.reason, cls.message);
        const error = this.o.mask ? { ...raw, message: this.o.mask(raw.message) } : raw;
        const delay = cls.class === 'transient' ? this.o.hooks.retryDelayMs(cls, attempt) : undefined;
        if (delay === undefined || this.o.clock.now() + delay >= deadline) {
          // A transient failure that outlives the step's time (or the retry policy) ends the step like a timeout.
          const final = cls.class === 'transient' ? failureInfo(new StepTimeoutError(step.name, step.timeoutSeconds, `retrying after: ${error.message}`), 'STEP_TIMEOUT', '') : error;
          await this.mutate((r) => withStepState(r, phase.name, step.name, fatal(stepState(r, phase.name, step.name), this.now(), final)));
          const object = applied.find((r) => refLabel(r) === final.object);
          this.emitInOrder({ type: 'step-failed', ...at, error: final, ...(object ? { object } : {}) });
          return { kind: 'failed', error: final };
        }
        await this.mutate((r) => withStepState(r, phase.name, step.name, errored(stepState(r, phase.name, step.name), this.now(), error, attempt + 1)));
        this.emitInOrder({ type: 'step-error', ...at, error, attempt: attempt + 1, retryInMs: delay });
        // The backoff ends early on supersede; the check at the top of the loop then stops the step.
        await this.o.clock.sleep(delay, this.o.signal).catch(() => undefined);
      }
    }
  }

  private currentStep(phase: string, step: string): RenderedStep | undefined {
    return this.plan.phases.find((p) => p.name === phase)?.steps.find((s) => s.name === step);
  }

  /** A method, not an inline check, so the compiler does not assume the signal's state between awaits. */
  private isSuperseded(): boolean {
    return this.o.signal?.aborted === true;
  }
}

/** `change` of the active run (undefined when there is none yet) and of the inventory, on `cp`. */
function applyChange(cp: Checkpoint, change: (run: PlanRun | undefined) => PlanRun, inventory?: (inv: Inventory) => Inventory): Checkpoint {
  return { ...cp, active: change(cp.active), inventory: inventory ? inventory(Inventory.of(cp.inventory)).entries : cp.inventory };
}

/** `; fields left to other managers: Deployment shop/web .spec.replicas ("kubectl")` (baton.dev/conflicts: Report). */
function leftText(left: readonly { object: string; conflicts: readonly { field: string; manager: string }[] }[]): string {
  if (left.length === 0) return '';
  return `; fields left to other managers: ${left.map((l) => `${l.object} ${l.conflicts.map((c) => `${c.field} ("${c.manager}")`).join(', ')}`).join('; ')}`;
}

function failureInfo(err: unknown, reason: string, message: string): FailureInfo {
  if (err instanceof BatonError) {
    const object = err.context['object'];
    return { code: err.code, message: err.message, ...(typeof object === 'string' ? { object } : {}) };
  }
  return { code: reason, message: message || String(err) };
}
