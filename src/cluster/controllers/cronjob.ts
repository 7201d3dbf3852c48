/**
 * The CronJob controller: creates a Job at each scheduled time (the latest missed one only, within
 * startingDeadlineSeconds), honours concurrencyPolicy and suspend, tracks active jobs and
 * lastScheduleTime / lastSuccessfulTime, and keeps the configured history. Schedules use the `cron`
 * package, which also accepts a leading seconds field (handy for quick tests).
 */
import { CronTime } from 'cron';
import type { KubeObject } from '../../kube/object.js';
import type { Controller } from './runtime/controller.js';
import { controllerRef, conditionsOf, isControlledBy, kubeTime, nameOf, num, ownerKeyOf, record, spec, status, str } from './runtime/meta.js';
import { isFinished } from './job.js';
import { simAnnotations } from './sim.js';

export const SCHEDULED_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface Due {
  /** The scheduled time to run now, if any. */
  runAt?: number;
  /** The next scheduled time after now. */
  next: number;
  missedBeyondDeadline: boolean;
}

/** Pure: the latest scheduled time in (last, now], and the next one after now. */
export function dueTimes(schedule: string, timeZone: string | undefined, last: number, now: number, startingDeadlineSeconds?: number): Due {
  const cron = new CronTime(schedule, timeZone);
  let cursor = cron.getNextDateFrom(new Date(last), timeZone).toMillis();
  let runAt: number | undefined;
  for (let i = 0; i < 10_000 && cursor <= now; i++) {
    runAt = cursor;
    cursor = cron.getNextDateFrom(new Date(cursor), timeZone).toMillis();
  }
  const missed = runAt !== undefined && startingDeadlineSeconds !== undefined && now - runAt > startingDeadlineSeconds * 1000;
  const due: Due = { next: cursor, missedBeyondDeadline: missed };
  if (runAt !== undefined && !missed) due.runAt = runAt;
  return due;
}

function jobFor(cj: KubeObject, at: number, secondsSchedule: boolean): KubeObject {
  const template = record(spec(cj).jobTemplate);
  const meta = record(template.metadata);
  const suffix = secondsSchedule ? Math.floor(at / 1000) : Math.floor(at / 60000);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${nameOf(cj)}-${suffix}`,
      namespace: cj.metadata.namespace ?? 'default',
      labels: record(meta.labels) as Record<string, string>,
      annotations: { ...simAnnotations(cj), ...(record(meta.annotations) as Record<string, string>), [SCHEDULED_ANNOTATION]: new Date(at).toISOString() },
      ownerReferences: [controllerRef(cj)],
    },
    spec: record(template.spec),
  };
}

const failedJob = (job: KubeObject): boolean => conditionsOf(job).some((c) => c.type === 'Failed' && c.status === 'True');

export function cronJobController(): Controller {
  return {
    name: 'cronjob',
    kind: 'CronJob',
    watches: [{ kind: 'Job', keys: ownerKeyOf('CronJob') }],
    async reconcile(key, ctx) {
      const cj = ctx.informer('CronJob').get(key);
      if (!cj || cj.metadata.deletionTimestamp !== undefined) return undefined;
      const now = ctx.clock.now();
      const jobs = ctx.informer('Job').list(cj.metadata.namespace).filter((j) => isControlledBy(j, cj));
      let active = jobs.filter((j) => !isFinished(j));
      const finished = jobs.filter(isFinished);

      // History: the oldest finished jobs beyond the limits go.
      const byAge = (a: KubeObject, b: KubeObject): number => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || nameOf(a).localeCompare(nameOf(b));
      const succeeded = finished.filter((j) => !failedJob(j)).sort(byAge);
      const failed = finished.filter(failedJob).sort(byAge);
      for (const j of succeeded.slice(0, Math.max(0, succeeded.length - num(spec(cj).successfulJobsHistoryLimit, 3)))) await ctx.api.delete(j);
      for (const j of failed.slice(0, Math.max(0, failed.length - num(spec(cj).failedJobsHistoryLimit, 1)))) await ctx.api.delete(j);

      const schedule = str(spec(cj).schedule) ?? '';
      const timeZone = str(spec(cj).timeZone);
      const last = Date.parse(str(status(cj).lastScheduleTime) ?? cj.metadata.creationTimestamp ?? '') || now;
      let due: Due;
      try {
        const deadline = spec(cj).startingDeadlineSeconds;
        due = dueTimes(schedule, timeZone, last, now, typeof deadline === 'number' ? deadline : undefined);
      } catch (err) {
        ctx.events.emit(cj, 'Warning', 'InvalidSchedule', `invalid schedule "${schedule}": ${err instanceof Error ? err.message : String(err)}`, 'cronjob-controller');
        return undefined;
      }
      const next: Record<string, unknown> = { ...status(cj) };
      if (due.runAt !== undefined && spec(cj).suspend !== true) {
        const policy = str(spec(cj).concurrencyPolicy) ?? 'Allow';
        if (policy === 'Forbid' && active.length > 0) {
          ctx.events.emit(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid', 'cronjob-controller');
        } else {
          if (policy === 'Replace') {
            for (const j of active) await ctx.api.delete(j);
            active = [];
          }
          const job = jobFor(cj, due.runAt, schedule.trim().split(/\s+/).length === 6);
          const created = await ctx.api.create(job);
          if (created) active = [...active, created];
          ctx.events.emit(cj, 'Normal', 'SuccessfulCreate', `Created job ${nameOf(job)}`, 'cronjob-controller');
          next.lastScheduleTime = kubeTime(due.runAt);
        }
      } else if (due.missedBeyondDeadline) {
        ctx.events.emit(cj, 'Warning', 'MissSchedule', 'Missed scheduled time to start a job because the starting deadline passed', 'cronjob-controller');
      }
      const times = succeeded.map((j) => Date.parse(str(status(j).completionTime) ?? '')).filter(Number.isFinite);
      if (times.length > 0) next.lastSuccessfulTime = kubeTime(Math.max(...times));
      if (active.length > 0) next.active = active.map((j) => ({ apiVersion: 'batch/v1', kind: 'Job', name: nameOf(j), namespace: j.metadata.namespace, uid: j.metadata.uid, resourceVersion: j.metadata.resourceVersion }));
      else delete next.active;
      await ctx.api.patchStatus(cj, next);
      return { requeueAfterMs: Math.max(0, due.next - now) + 5 };
    },
  };
}
