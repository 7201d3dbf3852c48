/** Schedule changes between two versions of an instance, with the next run times of each. */
import { CronTime } from 'cron';
import type { ScheduleDecl } from '../render/index.js';
import type { ScheduleChange } from './types.js';

const NEXT_RUNS = 3;

/** The next `count` run times after `from`, in ISO form (UTC); empty when the expression is invalid. */
export function nextRuns(cron: string, timezone: string | undefined, from: Date, count = NEXT_RUNS): string[] {
  try {
    const time = new CronTime(cron, timezone);
    const out: string[] = [];
    let cursor = from;
    for (let i = 0; i < count; i++) {
      const next = time.getNextDateFrom(cursor, timezone).toJSDate();
      out.push(next.toISOString());
      cursor = next;
    }
    return out;
  } catch {
    return [];
  }
}

function key(s: ScheduleDecl): string {
  return s.plan;
}

/** Schedules are matched by plan (one schedule per plan is the common case; extras match in order). */
export function diffSchedules(before: readonly ScheduleDecl[], after: readonly ScheduleDecl[], now: Date): ScheduleChange[] {
  const remaining = [...before];
  const out: ScheduleChange[] = [];
  for (const s of after) {
    const i = remaining.findIndex((b) => key(b) === key(s));
    const tz = s.timezone ?? 'UTC';
    if (i < 0) {
      out.push({ change: 'added', plan: s.plan, cron: s.cron, timezone: tz, nextRuns: nextRuns(s.cron, s.timezone, now) });
      continue;
    }
    const [prev] = remaining.splice(i, 1);
    if (!prev) continue;
    const changed = prev.cron !== s.cron || (prev.timezone ?? 'UTC') !== tz || JSON.stringify(prev.args ?? {}) !== JSON.stringify(s.args ?? {});
    if (changed) {
      const change: ScheduleChange = { change: 'changed', plan: s.plan, cron: s.cron, timezone: tz, nextRuns: nextRuns(s.cron, s.timezone, now) };
      if (prev.cron !== s.cron) change.previousCron = prev.cron;
      out.push(change);
    }
  }
  for (const s of remaining) out.push({ change: 'removed', plan: s.plan, cron: s.cron, timezone: s.timezone ?? 'UTC', nextRuns: [] });
  return out;
}
