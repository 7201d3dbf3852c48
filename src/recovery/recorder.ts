/**
 * A pod-level run as the record sees it: a PlanRun of a pseudo-plan (`pod-restart`, `pod-replace`,
 * `decommission`) with one phase and one step per pod, saved in the checkpoint's `pods` record at every
 * change and announced through engine events, like a repair. Shared by pod actions and decommissions.
 */
import { randomUUID } from 'node:crypto';
import { keepRecentPodActions, type Checkpoint, type PodActionEntry, type StoredCheckpoint, type CheckpointStore, type InstanceKey } from '../plans/checkpoint.js';
import { isoAt, type Clock } from '../plans/clock.js';
import type { EventListener } from '../plans/events.js';
import type { EngineHooks } from '../plans/hooks.js';
import { stepState, withPhaseState, withPlanState, withStepState } from '../plans/run-record.js';
import { CheckpointSession } from '../plans/session.js';
import { complete, fatal, inProgress, pending, type FailureInfo, type PlanRun } from '../plans/state.js';

export interface RecorderInput {
  store: CheckpointStore;
  stored: StoredCheckpoint;
  hooks: EngineHooks;
  clock: Clock;
  emit: EventListener;
  instance: InstanceKey;
  plan: string;
  phase: string;
  steps: readonly string[];
  reason: string;
  args: Record<string, string>;
  sourceCommit?: string;
  /** Recent-action entries this run adds (limits count on them). */
  entries: (runId: string, at: string) => PodActionEntry[];
  /** Extra checkpoint change with every save (a handled request id, decommissioned claims). */
  alsoSave?: (cp: Checkpoint) => Checkpoint;
}

export class PodRunRecorder {
  run: PlanRun;
  private readonly session: CheckpointSession;
  private readonly entries: PodActionEntry[];
  private failure: FailureInfo | undefined;

  constructor(private readonly input: RecorderInput) {
    const cp = input.stored.checkpoint;
    const now = isoAt(input.clock);
    const id = randomUUID();
    this.run = {
      id, plan: input.plan, reason: input.reason.slice(0, 500), args: input.args,
      frameworkVersion: cp.target?.frameworkVersion ?? cp.applied?.frameworkVersion ?? '',
      ...(input.sourceCommit ? { sourceCommit: input.sourceCommit } : {}),
      strategy: 'parallel',
      state: inProgress(pending(), now, input.reason.slice(0, 200)),
      phases: [{ name: input.phase, strategy: 'parallel', state: inProgress(pending(), now, `${input.steps.length} pod${input.steps.length === 1 ? '' : 's'}`), steps: input.steps.map((name) => ({ name, state: pending() })) }],
    };
    this.entries = input.entries(id, now);
    this.session = new CheckpointSession(input.store, cp, input.stored.version, input.emit, (t) => t, { hooks: input.hooks, clock: input.clock });
  }

  private get base(): { instance: InstanceKey; runId: string; plan: string } {
    return { instance: this.input.instance, runId: this.run.id, plan: this.input.plan };
  }

  private save(): Promise<void> {
    const r = this.run;
    return this.session.update((c) => {
      const recent = c.pods?.recent ?? [];
      const fresh = recent.some((e) => e.runId === r.id) ? recent : keepRecentPodActions([...this.entries, ...recent]);
      const next: Checkpoint = { ...c, pods: { ...(c.pods ?? {}), recent: fresh, last: r } };
      return this.input.alsoSave ? this.input.alsoSave(next) : next;
    });
  }

  async start(): Promise<void> {
    await this.save();
    this.input.emit({ type: 'plan-started', ...this.base, run: this.run, resumed: false, warnings: [] });
    this.input.emit({ type: 'phase-started', ...this.base, phase: this.input.phase });
  }

  async stepStarted(step: string, message: string, objects: number): Promise<void> {
    this.run = withStepState(this.run, this.input.phase, step, inProgress(stepState(this.run, this.input.phase, step), isoAt(this.input.clock), message));
    await this.save();
    this.input.emit({ type: 'step-started', ...this.base, phase: this.input.phase, step, objects, attempt: 0 });
  }

  waiting(step: string, object: string, message: string): void {
    this.input.emit({ type: 'step-waiting', ...this.base, phase: this.input.phase, step, object, message });
  }

  async stepComplete(step: string, message: string, deleted: number): Promise<void> {
    this.run = withStepState(this.run, this.input.phase, step, complete(stepState(this.run, this.input.phase, step), isoAt(this.input.clock), message));
    await this.save();
    this.input.emit({ type: 'step-complete', ...this.base, phase: this.input.phase, step, applied: 0, deleted, objects: [] });
  }

  async stepFailed(step: string, error: FailureInfo): Promise<void> {
    this.failure ??= error;
    this.run = withStepState(this.run, this.input.phase, step, fatal(stepState(this.run, this.input.phase, step), isoAt(this.input.clock), error));
    await this.save();
    this.input.emit({ type: 'step-failed', ...this.base, phase: this.input.phase, step, error });
  }

  /** The run's one end: complete with `message`, or failed with the first step failure (or `error`). */
  async finish(message: string, error?: FailureInfo): Promise<{ kind: 'complete'; run: PlanRun } | { kind: 'failed'; run: PlanRun; error: FailureInfo }> {
    const t = isoAt(this.input.clock);
    const failure = error ?? this.failure;
    const phase = this.input.phase;
    if (failure !== undefined) {
      this.run = withPhaseState(this.run, phase, fatal(this.run.phases[0]?.state ?? pending(), t, failure));
      this.run = withPlanState(this.run, fatal(this.run.state, t, failure));
      await this.save().catch(() => undefined);
      this.input.emit({ type: 'phase-failed', ...this.base, phase });
      this.input.emit({ type: 'plan-failed', ...this.base, run: this.run, error: failure });
      return { kind: 'failed', run: this.run, error: failure };
    }
    this.run = withPhaseState(this.run, phase, complete(this.run.phases[0]?.state ?? pending(), t, 'phase complete'));
    this.run = withPlanState(this.run, complete(this.run.state, t, message));
    await this.save();
    this.input.emit({ type: 'phase-complete', ...this.base, phase });
    this.input.emit({ type: 'plan-complete', ...this.base, run: this.run });
    return { kind: 'complete', run: this.run };
  }
}
