/**
 * Turns engine events into status file updates (one place builds the status, whatever path the work
 * took): a commit at plan start, at each phase end and at plan end, coalesced by the writer.
 */
import type { Checkpoint } from '../plans/checkpoint.js';
import type { EngineEvent } from '../plans/events.js';
import type { PlanRun } from '../plans/state.js';
import type { StatusWriter } from './status-writer.js';
import { maskSensitive } from '../render/mask.js';
import { buildStatus, formatStatus, statusPath, type Fingerprint, type InstanceKey, type InstanceStatus, type RefusalStatus, type ScheduleStatus } from './status-file.js';
import { summaryOf, trailersOf, type Transition, type TransitionEvent } from './trailers.js';
import type { DriftSection, HealthSection } from './status-sections.js';

/** Sync and health as the status says after the transition, and a repair's objects (docs/drift.md). */
function withStatusTrailers(t: Transition, status: InstanceStatus, cp: Checkpoint | undefined): Transition {
  const objects = t.objects ?? (t.plan === 'repair' && t.runId === cp?.repair?.last?.id ? cp?.repair?.objects : undefined);
  return { ...t, ...(status.sync ? { sync: t.sync ?? status.sync.status } : {}), ...(status.health ? { health: t.health ?? status.health.status } : {}), ...(objects ? { objects } : {}) };
}

export interface ReporterContext {
  key: InstanceKey;
  framework: { name: string; version?: string };
  sourceCommit: string;
  observed: Fingerprint;
  sensitiveValues: readonly string[];
  schedules: ScheduleStatus[];
  now: () => string;
  /** The health and drift sections to carry (the last drift check, or the previous status's). */
  live?: () => { health?: HealthSection; drift?: DriftSection };
}

export class StatusReporter {
  checkpoint: Checkpoint | undefined;
  last: InstanceStatus | undefined;

  constructor(private readonly writer: StatusWriter, private readonly ctx: ReporterContext, initial?: Checkpoint) {
    this.checkpoint = initial;
  }

  /** Once the instance's values are resolved: mask them in everything written from now on. */
  setSensitiveValues(values: readonly string[]): void {
    this.ctx.sensitiveValues = values;
  }

  /** Engine event listener. */
  readonly onEvent = (event: EngineEvent): void => {
    switch (event.type) {
      case 'checkpoint':
        this.checkpoint = event.checkpoint;
        return;
      case 'plan-started':
        this.write(this.transition('plan-started', 'IN_PROGRESS', event.run));
        return;
      case 'phase-complete':
        this.write({ ...this.transition('phase-complete', 'IN_PROGRESS', this.checkpoint?.active), plan: event.plan, phase: event.phase });
        return;
      case 'plan-complete':
        this.write(this.transition('plan-complete', 'COMPLETE', event.run));
        return;
      case 'plan-failed':
        this.write({ ...this.transition('plan-failed', event.run.state.status, event.run), message: event.error.message });
        return;
      case 'plan-superseded':
        this.write(this.transition('plan-superseded', 'SUPERSEDED', event.run));
        return;
      case 'phase-started':
      case 'phase-failed':
      case 'step-started':
      case 'step-waiting':
      case 'step-error':
      case 'step-complete':
      case 'step-failed':
      case 'prune':
      case 'refused':
        // Steps change often: they reach Git with the next phase or plan transition (coalescing).
        return;
    }
  };

  transition(event: TransitionEvent, result: string, run?: PlanRun): Transition {
    const t: Transition = { instance: this.ctx.key, event, result, sourceCommit: this.ctx.sourceCommit };
    if (run) {
      t.plan = run.plan;
      t.runId = run.id;
      t.frameworkVersion = run.frameworkVersion;
      const state = run.state;
      if (state.status === 'COMPLETE' || state.status === 'FATAL_ERROR') t.durationSeconds = (Date.parse(state.finishedAt) - Date.parse(state.startedAt)) / 1000;
    }
    return t;
  }

  /** Submits the status as it is now, described by `t`. */
  write(transition: Transition, extra: { refusal?: RefusalStatus; removed?: boolean } = {}): void {
    // The commit subject and trailers go into git log for good: a message quoting a sensitive value
    // (an API error echoing a field) is masked like the status file itself. Only the message: ids in
    // the trailers (commits, runs) must stay exact.
    const t = transition.message === undefined ? transition : { ...transition, message: maskSensitive(transition.message, this.ctx.sensitiveValues) };
    if (extra.removed) {
      this.writer.submit({ path: statusPath(this.ctx.key), content: null, summary: summaryOf(t), trailers: trailersOf(t) });
      return;
    }
    const status = buildStatus({
      instance: this.ctx.key,
      framework: this.ctx.framework,
      sourceCommit: this.ctx.sourceCommit,
      observed: this.ctx.observed,
      now: this.ctx.now(),
      ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}),
      ...(extra.refusal ? { refusal: extra.refusal } : {}),
      schedules: this.ctx.schedules,
      sensitiveValues: this.ctx.sensitiveValues,
      ...(this.ctx.live?.() ?? {}),
    });
    this.last = status;
    const described = withStatusTrailers(t, status, this.checkpoint);
    this.writer.submit({ path: statusPath(this.ctx.key), content: formatStatus(status), summary: summaryOf(described), trailers: trailersOf(described) });
  }
}
