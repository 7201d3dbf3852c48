/**
 * Jobs and Pods. An image that cannot be pulled is waited on for a grace period (registries have
 * hiccups) and then fails the gate; a crash loop keeps waiting (it may recover) with its restart count.
 */
import { isRecord, type KubeObject } from '../../kube/object.js';
import { condition, isTrue, list, num, str, why } from './fields.js';
import { done, failed, waiting, type GateContext, type GateResult } from './types.js';

export function jobGate(obj: KubeObject): GateResult {
  const complete = condition(obj, 'Complete');
  if (complete?.status === 'True') return done(`complete (${num(obj, 'status.succeeded')} succeeded)`);
  const fail = condition(obj, 'Failed');
  if (fail?.status === 'True') return failed('JobFailed', `job failed${why(fail)}`);
  if (obj.spec !== undefined && isRecord(obj.spec) && obj.spec.suspend === true) return waiting('job is suspended');
  const completions = num(obj, 'spec.completions', 1);
  const succeeded = num(obj, 'status.succeeded');
  const active = num(obj, 'status.active');
  const failures = num(obj, 'status.failed');
  const extra = [active > 0 ? `${active} active` : '', failures > 0 ? `${failures} failed` : ''].filter(Boolean).join(', ');
  return waiting(`${succeeded}/${completions} completions${extra ? ` (${extra})` : ''}`);
}

export const PULL_FAILURES: ReadonlySet<string> = new Set(['ImagePullBackOff', 'ErrImagePull']);
/** Waiting reasons that no retry will fix. */
export const HOPELESS: ReadonlySet<string> = new Set(['InvalidImageName', 'ErrImageNeverPull']);

interface ContainerProblem {
  container: string;
  image: string;
  reason: string;
  message: string;
  restarts: number;
}

function containerProblems(pod: KubeObject): ContainerProblem[] {
  const out: ContainerProblem[] = [];
  for (const path of ['status.initContainerStatuses', 'status.containerStatuses']) {
    for (const cs of list(pod, path)) {
      const reason = str(cs, 'state.waiting.reason');
      if (reason === undefined || reason === 'ContainerCreating' || reason === 'PodInitializing') continue;
      out.push({
        container: str(cs, 'name') ?? '?',
        image: str(cs, 'image') ?? '?',
        reason,
        message: str(cs, 'state.waiting.message') ?? '',
        restarts: num(cs, 'restartCount'),
      });
    }
  }
  return out;
}

function secondsSince(pod: KubeObject, now: Date): number {
  const since = str(pod, 'status.startTime') ?? pod.metadata.creationTimestamp;
  const t = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(t) ? 0 : (now.getTime() - t) / 1000;
}

export function podGate(obj: KubeObject, ctx: GateContext): GateResult {
  const phase = str(obj, 'status.phase');
  if (phase === 'Succeeded') return done('pod succeeded');
  if (phase === 'Failed') {
    const detail = [str(obj, 'status.reason'), str(obj, 'status.message')].filter(Boolean).join(': ');
    return failed('PodFailed', `pod failed${detail ? ` (${detail})` : ''}`);
  }
  for (const p of containerProblems(obj)) {
    const pull = `${p.reason} (image ${p.image})`;
    if (HOPELESS.has(p.reason)) return failed(p.reason, pull);
    if (PULL_FAILURES.has(p.reason)) {
      const age = secondsSince(obj, ctx.now);
      if (age >= ctx.imagePullGraceSeconds) return failed(p.reason, `${pull} for ${Math.round(age)}s, past the ${ctx.imagePullGraceSeconds}s grace`);
      return waiting(pull);
    }
    if (p.reason === 'CrashLoopBackOff') return waiting(`CrashLoopBackOff (container ${p.container}, restarts ${p.restarts})`);
    return waiting(`${p.reason} (container ${p.container}${p.message ? `: ${p.message}` : ''})`);
  }
  if (isTrue(obj, 'Ready')) return done('pod ready');
  const ready = condition(obj, 'Ready');
  if (phase === 'Pending' && !isTrue(obj, 'PodScheduled')) return waiting(`pod not scheduled${why(condition(obj, 'PodScheduled'))}`);
  return waiting(`pod ${phase ?? 'Pending'}, not ready${why(ready)}`);
}
