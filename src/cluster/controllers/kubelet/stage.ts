/**
 * The simulated kubelet's clock: given when a pod was scheduled, its timings and the failure asked
 * for, where in its life the pod is now, and when that will next change. Pure, so every failure mode
 * can be checked at any instant without waiting.
 *
 *   unschedulable                                   (fail: pending)
 *   creating --startMs--> image-pull-backoff        (fail: image-pull, or an image tagged does-not-exist)
 *   creating --startMs--> running --readyMs--> ready
 *                         running (forever)         (fail: never-ready)
 *                         running <-> crash-loop    (fail: crash-loop; restarts back off, doubling)
 *                         running --runMs--> succeeded | failed (fail: job-fail)   (restartPolicy Never/OnFailure)
 */
import type { FailureMode, PodTiming } from '../sim.js';

export type PodStage =
  | { kind: 'unschedulable' }
  | { kind: 'creating' }
  | { kind: 'image-pull-backoff' }
  | { kind: 'running'; startedAt: number }
  | { kind: 'ready'; startedAt: number; readyAt: number }
  | { kind: 'crash-loop'; restarts: number; lastStartedAt: number; lastFinishedAt: number; backoffMs: number }
  | { kind: 'succeeded'; startedAt: number; finishedAt: number }
  | { kind: 'failed'; startedAt: number; finishedAt: number };

export interface StageInput {
  scheduledAt: number;
  now: number;
  timing: PodTiming;
  failure: FailureMode | undefined;
  /** restartPolicy Never/OnFailure: the pod's containers run to completion. */
  runsToCompletion: boolean;
}

export interface StageResult {
  stage: PodStage;
  /** When to look again (ms from now), if the stage will change by itself. */
  nextInMs?: number;
}

/** How long a crash-looping container runs before it exits, and the first back-off. */
export const CRASH_RUN_MS = 50;
export const CRASH_BACKOFF_CAP_MS = 10_000;

export function podStage(input: StageInput): StageResult {
  const { scheduledAt, now, timing, failure, runsToCompletion } = input;
  if (failure === 'pending') return { stage: { kind: 'unschedulable' } };
  const startedAt = scheduledAt + timing.startMs;
  if (now < startedAt) return { stage: { kind: 'creating' }, nextInMs: startedAt - now };
  if (failure === 'image-pull') return { stage: { kind: 'image-pull-backoff' } };

  if (runsToCompletion) {
    const finishedAt = startedAt + timing.runMs;
    if (now < finishedAt) return { stage: { kind: 'running', startedAt }, nextInMs: finishedAt - now };
    const failed = failure === 'job-fail' || failure === 'crash-loop';
    return { stage: { kind: failed ? 'failed' : 'succeeded', startedAt, finishedAt } };
  }
  if (failure === 'crash-loop') return crashLoop(startedAt, now, timing);
  if (failure === 'never-ready') return { stage: { kind: 'running', startedAt } };
  const readyAt = startedAt + timing.readyMs;
  if (now < readyAt) return { stage: { kind: 'running', startedAt }, nextInMs: readyAt - now };
  return { stage: { kind: 'ready', startedAt, readyAt } };
}

/**
 * Runs CRASH_RUN_MS, exits 1, and is restarted after a back-off that doubles from max(startMs, 20) up to
 * the cap. From the first exit on the kubelet reports CrashLoopBackOff with the last termination.
 */
function crashLoop(firstStart: number, now: number, timing: PodTiming): StageResult {
  const base = Math.max(timing.startMs, 20);
  let exitAt = firstStart + CRASH_RUN_MS;
  let restarts = 0;
  while (now >= exitAt) {
    const backoffMs = Math.min(base * 2 ** restarts, CRASH_BACKOFF_CAP_MS);
    restarts++;
    const nextExit = exitAt + backoffMs + CRASH_RUN_MS;
    if (now < nextExit) {
      return { stage: { kind: 'crash-loop', restarts, lastStartedAt: exitAt - CRASH_RUN_MS, lastFinishedAt: exitAt, backoffMs }, nextInMs: nextExit - now };
    }
    exitAt = nextExit;
  }
  return { stage: { kind: 'running', startedAt: firstStart }, nextInMs: exitAt - now };
}
