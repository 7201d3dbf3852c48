/** Validation of an instance's `schedules`: the plan exists, the cron expression parses and fires, the zone exists. */
import { CronTime } from 'cron';
import type { Instance } from './model.js';
import { problem, type Problem } from './problems.js';

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Problems of every schedule of an instance; `plans` are the plan names of its framework version. */
export function scheduleProblems(instance: Instance, plans: ReadonlySet<string>): Problem[] {
  const out: Problem[] = [];
  const src = instance.source;
  instance.decl.schedules.forEach((s, i) => {
    const at = (field: string): Pick<Problem, 'file' | 'path' | 'line' | 'column'> => {
      const path = ['schedules', i, field];
      return { file: instance.file, path, ...src.locate(path) };
    };
    if (!plans.has(s.plan)) {
      out.push(problem({ code: 'SCHEDULE_PLAN_UNKNOWN', ...at('plan'), message: `schedule ${i + 1} runs plan "${s.plan}", which the framework does not define (plans: ${[...plans].sort().join(', ')})` }));
    }
    if (s.timezone !== undefined && !isValidTimezone(s.timezone)) {
      out.push(problem({ code: 'SCHEDULE_TIMEZONE_INVALID', ...at('timezone'), message: `schedule ${i + 1}: unknown time zone "${s.timezone}" (use an IANA name such as Europe/Berlin)` }));
      return;
    }
    let cron: CronTime;
    try {
      cron = new CronTime(s.cron, s.timezone);
    } catch (err) {
      out.push(problem({ code: 'SCHEDULE_CRON_INVALID', ...at('cron'), message: `schedule ${i + 1}: invalid cron expression "${s.cron}": ${err instanceof Error ? err.message : String(err)}` }));
      return;
    }
    try {
      // `0 0 31 2 *` parses but never fires; computing the next time once is the only way to know.
      cron.sendAt();
    } catch {
      out.push(problem({ code: 'SCHEDULE_NEVER_FIRES', ...at('cron'), message: `schedule ${i + 1}: cron expression "${s.cron}" never fires` }));
    }
  });
  return out;
}
