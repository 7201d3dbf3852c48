/**
 * The Job controller: runs pods until `completions` succeed (at most `parallelism` at once; Indexed
 * jobs one success per index), fails the Job after more than `backoffLimit` failed pods or past
 * `activeDeadlineSeconds`, and reports Complete / Failed conditions like Kubernetes 1.31+.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Controller } from './runtime/controller.js';
import { conditionsOf, isControlledBy, kubeTime, nameOf, num, ownerKeyOf, randomSuffix, setCondition, spec, status, str, type Condition } from './runtime/meta.js';
import { isActive, isReady, podFromTemplate } from './runtime/pods.js';

export const INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';

export type JobVerdict = { kind: 'running'; create: number[]; } | { kind: 'complete' } | { kind: 'failed'; reason: 'BackoffLimitExceeded' | 'DeadlineExceeded'; message: string };

const phaseOf = (p: KubeObject): string | undefined => str(status(p).phase);

export function isFinished(job: KubeObject): boolean {
  return conditionsOf(job).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** Pure: what the Job needs now. `create` lists completion indexes (Indexed) or -1 per NonIndexed pod. */
export function judgeJob(job: KubeObject, pods: KubeObject[], now: number): JobVerdict {
  const parallelism = num(spec(job).parallelism, 1);
  const completionsSet = typeof spec(job).completions === 'number';
  const completions = num(spec(job).completions, completionsSet ? 1 : parallelism === 1 ? 1 : Number.POSITIVE_INFINITY);
  const backoffLimit = num(spec(job).backoffLimit, 6);
  const active = pods.filter(isActive);
  const succeeded = pods.filter((p) => phaseOf(p) === 'Succeeded');
  const failed = pods.filter((p) => phaseOf(p) === 'Failed').length;
  const indexed = str(spec(job).completionMode) === 'Indexed';

  if (failed > backoffLimit) return { kind: 'failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
  const deadline = spec(job).activeDeadlineSeconds;
  const started = Date.parse(str(status(job).startTime) ?? '');
  if (typeof deadline === 'number' && Number.isFinite(started) && now - started > deadline * 1000) {
    return { kind: 'failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
  }
  if (indexed) {
    const done = new Set(succeeded.map((p) => p.metadata.annotations?.[INDEX_ANNOTATION]));
    const running = new Set(active.map((p) => p.metadata.annotations?.[INDEX_ANNOTATION]));
    if (done.size >= completions) return { kind: 'complete' };
    const missing: number[] = [];
    for (let i = 0; i < completions && missing.length + running.size < parallelism; i++) if (!done.has(String(i)) && !running.has(String(i))) missing.push(i);
    return { kind: 'running', create: missing };
  }
  // Work-queue jobs (no completions, parallelism > 1) are done once one pod succeeded and none runs.
  if (!Number.isFinite(completions)) {
    if (succeeded.length > 0 && active.length === 0) return { kind: 'complete' };
    const want = succeeded.length > 0 ? 0 : parallelism - active.length;
    return { kind: 'running', create: Array.from({ length: Math.max(0, want) }, () => -1) };
  }
  if (succeeded.length >= completions) return { kind: 'complete' };
  const want = Math.min(parallelism, completions - succeeded.length) - active.length;
  return { kind: 'running', create: Array.from({ length: Math.max(0, want) }, () => -1) };
}

export function jobStatus(job: KubeObject, pods: KubeObject[], verdict: JobVerdict, now: number): Record<string, unknown> {
  const old = status(job);
  let conditions: Condition[] = conditionsOf(job);
  const next: Record<string, unknown> = { startTime: old.startTime ?? kubeTime(now) };
  if (verdict.kind === 'complete') {
    conditions = setCondition(conditions, { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }, now);
    conditions = setCondition(conditions, { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }, now);
    next.completionTime = old.completionTime ?? kubeTime(now);
  } else if (verdict.kind === 'failed') {
    conditions = setCondition(conditions, { type: 'FailureTarget', status: 'True', reason: verdict.reason, message: verdict.message }, now);
    conditions = setCondition(conditions, { type: 'Failed', status: 'True', reason: verdict.reason, message: verdict.message }, now);
  }
  const counts = {
    active: pods.filter(isActive).length,
    ready: pods.filter((p) => isActive(p) && isReady(p)).length,
    succeeded: pods.filter((p) => phaseOf(p) === 'Succeeded').length,
    failed: pods.filter((p) => phaseOf(p) === 'Failed').length,
  };
  if (counts.active > 0) next.active = counts.active;
  next.ready = counts.ready;
  if (counts.succeeded > 0) next.succeeded = counts.succeeded;
  if (counts.failed > 0) next.failed = counts.failed;
  next.terminating = 0;
  next.uncountedTerminatedPods = {};
  if (conditions.length > 0) next.conditions = conditions;
  if (str(spec(job).completionMode) === 'Indexed') {
    const done = pods.filter((p) => phaseOf(p) === 'Succeeded').map((p) => Number(p.metadata.annotations?.[INDEX_ANNOTATION])).filter(Number.isInteger).sort((a, b) => a - b);
    if (done.length > 0) next.completedIndexes = [...new Set(done)].join(',');
  }
  return next;
}

export function jobController(): Controller {
  return {
    name: 'job',
    kind: 'Job',
    watches: [{ kind: 'Pod', keys: ownerKeyOf('Job') }],
    async reconcile(key, ctx) {
      const job = ctx.informer('Job').get(key);
      if (!job || job.metadata.deletionTimestamp !== undefined) return undefined;
      const pods = ctx.informer('Pod').list(job.metadata.namespace).filter((p) => isControlledBy(p, job));
      const now = ctx.clock.now();
      if (isFinished(job)) {
        for (const pod of pods.filter(isActive)) await ctx.api.delete(pod);
        return undefined;
      }
      const verdict = spec(job).suspend === true ? { kind: 'running' as const, create: [] } : judgeJob(job, pods, now);
      if (verdict.kind === 'running') {
        for (const index of verdict.create) {
          const uid = job.metadata.uid ?? '';
          const labels = { 'batch.kubernetes.io/controller-uid': uid, 'controller-uid': uid, 'batch.kubernetes.io/job-name': nameOf(job), 'job-name': nameOf(job) };
          const name = index >= 0 ? `${nameOf(job)}-${index}-${randomSuffix()}` : `${nameOf(job)}-${randomSuffix()}`;
          const pod = podFromTemplate(job, spec(job).template, name, index >= 0 ? { ...labels, 'batch.kubernetes.io/job-completion-index': String(index) } : labels);
          if (index >= 0) pod.metadata.annotations = { ...pod.metadata.annotations, [INDEX_ANNOTATION]: String(index) };
          await ctx.api.create(pod);
          ctx.events.emit(job, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`, 'job-controller');
        }
      } else if (verdict.kind === 'complete') {
        ctx.events.emit(job, 'Normal', 'Completed', 'Job completed', 'job-controller');
      } else {
        for (const pod of pods.filter(isActive)) await ctx.api.delete(pod);
        ctx.events.emit(job, 'Warning', verdict.reason, verdict.message, 'job-controller');
      }
      await ctx.api.patchStatus(ctx.informer('Job').get(key) ?? job, jobStatus(job, ctx.informer('Pod').list(job.metadata.namespace).filter((p) => isControlledBy(p, job)), verdict, now));
      const deadline = spec(job).activeDeadlineSeconds;
      return typeof deadline === 'number' && verdict.kind === 'running' ? { requeueAfterMs: 1000 } : undefined;
    },
  };
}
