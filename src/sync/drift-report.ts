/**
 * Status commits for drift: a drift check whose result differs from what the status says (new or
 * resolved drift, a health change), and repairs as runs of the pseudo-plan `repair` (started, then
 * complete / failed / superseded), with `Baton-Drift-Object` trailers naming the objects. A repair
 * whose transitions the record does not show yet (the agent stopped between the checkpoint write and
 * the commit) is recorded on the next look, once: the record is compared with the checkpoint.
 */
import type { Checkpoint, InstanceKey } from '../plans/checkpoint.js';
import type { EngineEvent } from '../plans/events.js';
import { isFinished, type PlanRun } from '../plans/state.js';
import type { InstanceStatus } from './status-file.js';
import { StatusReporter, type RecordBook } from './status-reporter.js';
import type { DriftSection, HealthSection } from './status-sections.js';
import type { StatusWriter } from './status-writer.js';

export interface LiveSections {
  health?: HealthSection;
  drift?: DriftSection;
}

export interface DriftReportDeps {
  writer: StatusWriter;
  now: () => string;
  /** The agent's record of every instance's last status (transitions are derived against it). */
  records: RecordBook;
  /** The API server of an instance's target cluster, once connected (recorded in status when its last status has none). */
  clusterServerOf?: (key: InstanceKey) => string | undefined;
}

/** A reporter continuing from an instance's last status, carrying `live` sections in everything it writes. */
export function driftReporter(deps: DriftReportDeps, previous: InstanceStatus, checkpoint: Checkpoint | undefined, live: () => LiveSections, sensitiveValues: readonly string[]): StatusReporter {
  return new StatusReporter(deps.writer, {
    key: previous.instance,
    framework: previous.framework,
    sourceCommit: previous.sourceCommit,
    observed: previous.observed,
    sensitiveValues,
    schedules: previous.schedules,
    now: deps.now,
    live,
    ...(previous.cluster ? { cluster: previous.cluster.name, clusterServer: () => previous.cluster?.server ?? deps.clusterServerOf?.(previous.instance) } : {}),
  }, checkpoint, deps.records);
}

/** `drift: Service shop/web missing, Deployment shop/web .spec.replicas (kubectl); health Missing`. */
export function driftMessage(s: LiveSections): string {
  const d = s.drift;
  const parts: string[] = [];
  if (d?.status === 'Drifted') {
    const named = d.objects.slice(0, 3).map((o) => `${o.object} ${o.reason === 'changed' ? (o.fields ?? []).slice(0, 2).join(', ') : o.reason}${o.managers?.length ? ` (${o.managers.join(', ')})` : ''}`);
    parts.push(`drift: ${d.objects.length === 0 ? (d.message ?? 'drifted') : `${named.join('; ')}${d.objects.length > 3 ? ` and ${d.objects.length - 3} more` : ''}`}`);
  } else if (d?.status === 'InSync') parts.push('no drift');
  else if (d?.status === 'Unknown') parts.push(`drift unknown: ${d.errors[0] ?? ''}`);
  else if (d?.status === 'NotChecked') parts.push(`drift not checked (${d.message ?? ''})`);
  if (s.health) parts.push(`health ${s.health.status}`);
  return parts.join('; ');
}

/** Records the drift check (one commit) when it says something the status does not. */
export function recordDriftCheck(reporter: StatusReporter, sections: LiveSections): void {
  const objects = sections.drift?.objects.map((o) => `${o.object} ${o.reason === 'changed' ? (o.fields ?? []).join(', ') : o.reason}`) ?? [];
  reporter.write({ ...reporter.transition('drift-checked', sections.drift?.status ?? 'Unknown'), message: driftMessage(sections), ...(objects.length > 0 ? { objects } : {}) });
}

/**
 * The repair transitions the record lacks, from the checkpoint's last repair: started (when the
 * record has never seen this repair) and its end (when it has ended), in order, each in its own commit
 * (`between` runs between two writes). Returns how many were written.
 */
export async function recordRepairTransitions(reporter: StatusReporter, record: InstanceStatus | undefined, cp: Checkpoint | undefined, between: () => Promise<void>): Promise<number> {
  return recordRunTransitions(reporter, record, cp?.repair?.last, between);
}

/** The same for any run kept beside the active one (a repair, a pod action): its started and end, once each. */
export async function recordRunTransitions(reporter: StatusReporter, record: InstanceStatus | undefined, last: PlanRun | undefined, between: () => Promise<void>): Promise<number> {
  if (last === undefined) return 0;
  const seen = record?.plans?.[last.plan];
  let written = 0;
  if (seen?.id !== last.id) {
    reporter.write(reporter.transition('plan-started', 'IN_PROGRESS', last));
    written++;
  }
  if (isFinished(last.state) && !(seen?.id === last.id && isFinished(seen.state))) {
    if (written > 0) await between();
    reporter.write(repairEnd(reporter, last));
    written++;
  }
  return written;
}

function repairEnd(reporter: StatusReporter, run: PlanRun): ReturnType<StatusReporter['transition']> {
  if (run.state.status === 'COMPLETE') return reporter.transition('plan-complete', 'COMPLETE', run);
  return { ...reporter.transition('plan-failed', run.state.status, run), ...(run.state.status === 'FATAL_ERROR' ? { message: run.state.message } : {}) };
}

/**
 * Engine events of a repair, written as transitions as they happen: the checkpoint the events carry
 * is what the status is built from; a superseded repair is recorded as such (a newer plan took over).
 */
export function repairListener(reporter: StatusReporter, commits: OneCommitEach): (e: EngineEvent) => void {
  return (e) => {
    if (e.type === 'checkpoint') {
      const cp = e.checkpoint;
      commits.write(() => { reporter.checkpoint = cp; });
    } else if (e.type === 'plan-started') commits.write(() => reporter.write(reporter.transition('plan-started', 'IN_PROGRESS', e.run)));
    else if (e.type === 'plan-complete') commits.write(() => reporter.write(reporter.transition('plan-complete', 'COMPLETE', e.run)));
    else if (e.type === 'plan-failed') commits.write(() => reporter.write({ ...reporter.transition('plan-failed', e.run.state.status, e.run), message: e.error.message }));
    else if (e.type === 'plan-superseded') commits.write(() => reporter.write(reporter.transition('plan-superseded', 'SUPERSEDED', e.run)));
  };
}

/**
 * Transitions of one instance, each in its own commit: the status writer keeps one update per file per
 * coalescing window (the last), so two transitions of one instance queued together would show as one
 * in `git log`. Flushing before each keeps both. Used for repairs (started, then their end).
 */
export class OneCommitEach {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly writer: Pick<StatusWriter, 'flushIfPending'>) {}

  write(write: () => void): void {
    this.chain = this.chain.then(async () => {
      await this.writer.flushIfPending().catch(() => undefined);
      write();
    });
  }

  /** Resolves once every write was submitted. */
  settled(): Promise<void> {
    return this.chain;
  }
}

/** Kubernetes Events for a drift check that changed something: drift found or resolved, health changed. */
export function liveEvents(previous: InstanceStatus | undefined, now: LiveSections): { type: 'Normal' | 'Warning'; reason: string; message: string }[] {
  const out: { type: 'Normal' | 'Warning'; reason: string; message: string }[] = [];
  const before = previous?.drift?.status;
  const after = now.drift?.status;
  if (after === 'Drifted' && JSON.stringify(previous?.drift?.objects) !== JSON.stringify(now.drift?.objects)) out.push({ type: 'Warning', reason: 'DriftDetected', message: driftMessage({ ...(now.drift ? { drift: now.drift } : {}) }) });
  else if (before === 'Drifted' && after === 'InSync') out.push({ type: 'Normal', reason: 'DriftResolved', message: 'the objects match the applied desired state again' });
  const h = now.health?.status;
  if (h !== undefined && h !== previous?.health?.status) {
    const first = now.health?.objects[0];
    out.push({ type: h === 'Healthy' || h === 'Progressing' ? 'Normal' : 'Warning', reason: 'HealthChanged', message: `health ${previous?.health?.status ?? 'unknown'} -> ${h}${first ? `: ${first.object}: ${first.message}` : ''}` });
  }
  return out;
}
