/**
 * Cron schedules of instances. The next run of a schedule is the first cron time after its last run
 * (recorded in the status file, so a restarted or replaced agent knows it) or, for a schedule never
 * run, after the moment the agent first saw it. A run missed while the agent was down is due once at
 * start-up, not once per missed slot: after it runs, the next time is computed from now.
 * (`baton validate` checks the fields; a schedule that fails here is reported and skipped.)
 */
import { CronTime } from 'cron';
import type { ScheduleDecl } from '../render/index.js';
import type { ScheduleStatus } from './status-file.js';

export interface DueRun {
  schedule: ScheduleDecl;
  /** The slot being run (ISO); also makes the run's request id, so a slot runs once. */
  slot: string;
}

const tzOf = (s: { timezone?: string | undefined }): string => s.timezone ?? 'UTC';
const sameSchedule = (a: { plan: string; cron: string; timezone?: string | undefined }, b: { plan: string; cron: string; timezone?: string | undefined }): boolean =>
  a.plan === b.plan && a.cron === b.cron && tzOf(a) === tzOf(b);

export function nextRun(schedule: ScheduleDecl, after: Date): Date | undefined {
  try {
    return new CronTime(schedule.cron, tzOf(schedule)).getNextDateFrom(after, tzOf(schedule)).toJSDate();
  } catch {
    return undefined;
  }
}

/**
 * The status entries for `decls`: last runs carried over from `previous`, next runs computed.
 * `firstSeen` stands in for the last run of a schedule that never ran.
 */
export function scheduleStatus(decls: readonly ScheduleDecl[], previous: readonly ScheduleStatus[], firstSeen: Date): ScheduleStatus[] {
  return decls.map((d) => {
    const old = previous.find((p) => sameSchedule(p, d));
    const lastRun = old?.lastRun;
    const from = lastRun !== undefined ? new Date(lastRun) : old?.nextRun !== undefined ? new Date(Date.parse(old.nextRun) - 1) : firstSeen;
    const next = nextRun(d, from);
    return { plan: d.plan, cron: d.cron, timezone: tzOf(d), ...(lastRun !== undefined ? { lastRun } : {}), ...(next ? { nextRun: next.toISOString() } : {}) };
  });
}

/** The schedule due first at `now`, if any (one run per pass per instance; the rest wait their turn). */
export function dueRun(decls: readonly ScheduleDecl[], status: readonly ScheduleStatus[], now: Date): DueRun | undefined {
  let best: DueRun | undefined;
  for (const d of decls) {
    const s = status.find((x) => sameSchedule(x, d));
    if (s?.nextRun === undefined) continue;
    if (Date.parse(s.nextRun) <= now.getTime() && (best === undefined || s.nextRun < best.slot)) best = { schedule: d, slot: s.nextRun };
  }
  return best;
}

/** The status after a run of `due` at `now`: last run recorded, the next one from now (missed slots collapse). */
export function afterRun(status: readonly ScheduleStatus[], due: DueRun, now: Date): ScheduleStatus[] {
  return status.map((s) => {
    if (!sameSchedule(s, due.schedule)) return s;
    const next = nextRun(due.schedule, now);
    return { ...s, lastRun: now.toISOString(), ...(next ? { nextRun: next.toISOString() } : {}) };
  });
}
