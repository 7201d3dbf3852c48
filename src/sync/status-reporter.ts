/**
 * Turns engine progress into status commits (one place builds the status, whatever path the work
 * took). Plan transitions are not written as events arrive but derived (transitions.ts): each time a
 * transition may have happened, the transitions the checkpoint shows and the record does not are
 * written, one status commit each. So nothing is recorded twice and nothing is lost.
 */
import type { Checkpoint } from '../plans/checkpoint.js';
import type { EngineEvent } from '../plans/events.js';
import type { PlanRun } from '../plans/state.js';
import type { StatusWriter } from './status-writer.js';
import { maskSensitive } from '../render/mask.js';
import { buildStatus, formatStatus, statusPath, type ParentStatus, type SuspendedStatus, type Fingerprint, type InstanceKey, type InstanceStatus, type RefusalStatus, type ScheduleStatus, type WaitingStatus } from './status-file.js';
import type { PodRequestWait } from '../recovery/waits.js';
import { summaryOf, trailersOf, type Transition, type TransitionEvent } from './trailers.js';
import type { DriftSection, HealthSection } from './status-sections.js';

/** Sync and health as the status says after the transition, and a repair's objects (docs/drift.md). */
function withStatusTrailers(t: Transition, status: InstanceStatus, cp: Checkpoint | undefined): Transition {
  const objects = t.objects ?? (t.plan === 'repair' && t.runId === cp?.repair?.last?.id ? cp?.repair?.objects : undefined);
  return { ...t, ...(status.sync ? { sync: t.sync ?? status.sync.status } : {}), ...(status.health ? { health: t.health ?? status.health.status } : {}), ...(objects ? { objects } : {}), ...podTrailers(t, cp) };
}

/** A pod action names its pods and who asked (a person, `recovery`, `decommission`). */
function podTrailers(t: Transition, cp: Checkpoint | undefined): Pick<Transition, 'pods' | 'requestedBy'> {
  const run = t.runId !== undefined && t.runId === cp?.pods?.last?.id ? cp.pods.last : undefined;
  const pods = t.pods ?? (run?.args['POD'] ? run.args['POD'].split(',') : undefined);
  const requestedBy = t.requestedBy ?? run?.args['BY'];
  return { ...(pods ? { pods } : {}), ...(requestedBy ? { requestedBy } : {}) };
}
import { unrecordedTransitions, type PlanTransition } from './transitions.js';
import { holdText, unrecordedControl, type ControlTransition } from '../control/index.js';

export interface ReporterContext {
  key: InstanceKey;
  framework: { name: string; version?: string };
  /** The user's commit this look at the instance is about (status `sourceCommit`, non-plan transitions). */
  sourceCommit: string;
  observed: Fingerprint;
  sensitiveValues: readonly string[];
  schedules: ScheduleStatus[];
  now: () => string;
  /** The health and drift sections to carry (the last drift check, or the previous status's). */
  live?: () => { health?: HealthSection; drift?: DriftSection };
  /** Set while the instance is suspended (`suspend: true`). */
  suspended?: SuspendedStatus;
  /** The instance's target cluster, when it names one (baton.yaml `clusters`). */
  cluster?: string;
  /** The API server of that cluster its objects are on, once known (read at each write). */
  clusterServer?: () => string | undefined;
  /** A child instance (Instance task): its parent, in every status written. */
  parent?: ParentStatus;
  /** Pod requests waiting (for the running plan), read at each write (src/recovery/waits.ts). */
  podRequests?: (checkpoint: Checkpoint | undefined) => readonly PodRequestWait[];
}

/**
 * The record: the last status written for each instance (committed, or queued in the writer). What it
 * says was recorded is what transitions are derived against, so every writer of status shares one.
 */
export interface RecordBook {
  get(key: InstanceKey): InstanceStatus | undefined;
  set(key: InstanceKey, status: InstanceStatus | undefined): void;
}

/** A record book of its own (tests, one-off writes). */
export function recordBook(initial?: InstanceStatus): RecordBook {
  const map = new Map<string, InstanceStatus>();
  const id = (k: InstanceKey): string => `${k.namespace}/${k.name}`;
  if (initial) map.set(id(initial.instance), initial);
  return {
    get: (k) => map.get(id(k)),
    set: (k, status) => { if (status) map.set(id(k), status); else map.delete(id(k)); },
  };
}

export class StatusReporter {
  checkpoint: Checkpoint | undefined;

  constructor(private readonly writer: StatusWriter, private readonly ctx: ReporterContext, initial: Checkpoint | undefined, private readonly records: RecordBook) {
    this.checkpoint = initial;
  }

  /** The instance's status as last written (by this reporter or before). */
  get last(): InstanceStatus | undefined {
    return this.records.get(this.ctx.key);
  }

  /** Marks the instance suspended (since when, by which commit) in everything written from now on. */
  setSuspended(suspended: SuspendedStatus | undefined): void {
    if (suspended) this.ctx.suspended = suspended;
    else delete this.ctx.suspended;
  }

  /** Once the instance's values are resolved: mask them in everything written from now on. */
  setSensitiveValues(values: readonly string[]): void {
    this.ctx.sensitiveValues = values;
  }

  /** Pod requests waiting, as every status written from now on lists them. */
  setPodRequests(waits: (checkpoint: Checkpoint | undefined) => readonly PodRequestWait[]): void {
    this.ctx.podRequests = waits;
  }

  /** Engine event listener. */
  readonly onEvent = (event: EngineEvent): void => {
    switch (event.type) {
      case 'checkpoint':
        this.checkpoint = event.checkpoint;
        return;
      case 'phase-complete':
        // The last phase's end is written with the plan's: recorded with plan-complete, after pruning.
        if (this.checkpoint?.active?.state.status === 'COMPLETE') return;
        this.recordTransitions();
        return;
      case 'plan-started':
      case 'plan-failed':
      case 'plan-waiting':
      case 'request':
        this.recordTransitions();
        return;
      // plan-complete: recorded by the caller once pruning is done, so it carries the final inventory.
      // plan-superseded: an interruption, not an end; the run resumes, or ends superseded when a newer one starts.
      case 'plan-complete':
      case 'plan-superseded':
      case 'phase-started':
      case 'phase-failed':
      case 'step-started':
      case 'step-waiting':
      case 'step-error':
      case 'step-complete':
      case 'step-failed':
      case 'prune':
      case 'refused':
        // Steps change often: they reach Git with the next transition.
        return;
    }
  };

  /**
   * Writes every plan transition the checkpoint shows and the record does not, in order, then the
   * operator transitions (requests carried out or refused, canary waits; src/control/); returns the
   * plan transitions.
   */
  recordTransitions(): PlanTransition[] {
    const missing = unrecordedTransitions(this.records.get(this.ctx.key), this.checkpoint);
    for (const t of missing) this.submit(this.planTransition(t));
    for (const c of unrecordedControl(this.records.get(this.ctx.key), this.checkpoint)) this.submit(this.controlTransition(c));
    return missing;
  }

  private controlTransition(c: ControlTransition): Transition {
    if (c.kind === 'waiting') {
      return { ...this.transition('plan-waiting', 'WAITING', c.run), sourceCommit: c.run.sourceCommit ?? this.ctx.sourceCommit, message: holdText(this.ctx.key, c.run) ?? 'waiting for baton plan continue' };
    }
    const r = c.record;
    const run = [this.checkpoint?.active, ...(this.checkpoint?.history ?? [])].find((x) => x !== undefined && x.id === r.runId);
    const t: Transition = run ? this.transition('request', run.state.status, run) : this.transition('request', 'DONE');
    return {
      ...t, event: r.result === 'refused' ? 'request-refused' : 'request', ...(r.result === 'refused' ? { result: 'REFUSED' } : {}),
      requestEvent: r.event, requestId: r.id, action: r.action, message: r.message,
      ...(r.plan !== undefined ? { plan: r.plan } : {}), ...(r.by !== undefined ? { requestedBy: r.by } : {}), ...(r.reason !== undefined ? { reason: r.reason } : {}),
      ...(r.phase !== undefined ? { phase: r.phase } : {}), ...(r.step !== undefined ? { step: r.step } : {}),
    };
  }

  /** A transition that is not a plan's (refused, observed, removed...): about the user's commit of this look. */
  transition(event: TransitionEvent, result: string, run?: PlanRun): Transition {
    const t: Transition = { instance: this.ctx.key, event, result, sourceCommit: this.ctx.sourceCommit };
    if (run) {
      t.plan = run.plan;
      t.runId = run.id;
      t.frameworkVersion = run.frameworkVersion;
    }
    return t;
  }

  /** A plan transition names the commit its run applies, recorded in the run when it started. */
  private planTransition(p: PlanTransition): Transition {
    const { run } = p;
    const state = run.state;
    const result = p.event === 'plan-complete' ? 'COMPLETE' : p.event === 'plan-failed' ? state.status : p.event === 'plan-superseded' ? 'SUPERSEDED' : 'IN_PROGRESS';
    const t: Transition = {
      ...this.transition(p.event, result, run),
      sourceCommit: run.sourceCommit ?? this.ctx.sourceCommit,
      ...(p.phase !== undefined ? { phase: p.phase } : {}),
    };
    if (state.status === 'COMPLETE' || state.status === 'FATAL_ERROR') t.durationSeconds = (Date.parse(state.finishedAt) - Date.parse(state.startedAt)) / 1000;
    if (p.event === 'plan-failed' && state.status === 'FATAL_ERROR') t.message = state.message;
    return t;
  }

  /**
   * Writes a transition that is not derived from the checkpoint (refused, observed, removed...), after
   * the plan transitions still missing, so the status it carries never claims an unrecorded one.
   */
  write(transition: Transition, extra: { refusal?: RefusalStatus; waiting?: WaitingStatus; removed?: boolean } = {}): void {
    this.recordTransitions();
    this.submit(transition, extra);
  }

  /**
   * Now, but later than the record's time: every transition's commit then changes the status file, so
   * path-limited `git log` (and `baton history`) lists it even when two transitions share a millisecond.
   */
  private updatedAt(): string {
    const now = this.ctx.now();
    const previous = Date.parse(this.records.get(this.ctx.key)?.updatedAt ?? '');
    return Number.isNaN(previous) || Date.parse(now) > previous ? now : new Date(previous + 1).toISOString();
  }

  /** Submits the status as it is now, described by `transition`, and makes it the record. */
  private submit(transition: Transition, extra: { refusal?: RefusalStatus; waiting?: WaitingStatus; removed?: boolean } = {}): void {
    // The commit subject and trailers go into git log for good: a message quoting a sensitive value
    // (an API error echoing a field) is masked like the status file itself. Only the message: ids in
    // the trailers (commits, runs) must stay exact.
    const t = transition.message === undefined ? transition : { ...transition, message: maskSensitive(transition.message, this.ctx.sensitiveValues) };
    if (extra.removed) {
      this.writer.submit({ path: statusPath(this.ctx.key), content: null, summary: summaryOf(t), trailers: trailersOf(t) });
      this.records.set(this.ctx.key, undefined);
      return;
    }
    const status = buildStatus({
      instance: this.ctx.key,
      framework: this.ctx.framework,
      sourceCommit: this.ctx.sourceCommit,
      observed: this.ctx.observed,
      now: this.updatedAt(),
      ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}),
      ...(extra.refusal ? { refusal: extra.refusal } : {}),
      ...(extra.waiting ? { waiting: extra.waiting } : {}),
      ...(this.ctx.podRequests ? { podRequests: this.ctx.podRequests(this.checkpoint) } : {}),
      schedules: this.ctx.schedules,
      sensitiveValues: this.ctx.sensitiveValues,
      ...(this.ctx.suspended ? { suspended: this.ctx.suspended } : {}),
      ...(this.ctx.cluster !== undefined ? { cluster: clusterOf(this.ctx.cluster, this.ctx.clusterServer?.()) } : {}),
      ...(this.ctx.parent ? { parent: this.ctx.parent } : {}),
      ...(this.ctx.live?.() ?? {}),
    });
    this.records.set(this.ctx.key, status);
    const described = withStatusTrailers(t, status, this.checkpoint);
    // Serialized when committed, once for the last status of this file in the commit (StatusUpdate.content).
    this.writer.submit({ path: statusPath(this.ctx.key), content: () => formatStatus(status), summary: summaryOf(described), trailers: trailersOf(described) });
  }
}

function clusterOf(name: string, server: string | undefined): { name: string; server?: string } {
  return server === undefined ? { name } : { name, server };
}
