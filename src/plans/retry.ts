/**
 * A failed desired state is retried: the plan the change called for ran and ended FATAL_ERROR, and
 * nothing newer is desired. The engine records the failure on the checkpoint's `target` and runs the
 * same plan again once its backoff has passed (exponential, from `initialMs`, at most `maxMs`), or at
 * once when asked (`retryNow`: a new commit, or `baton apply`). Pure.
 */
import type { Checkpoint, TargetFailure, TargetRecord } from './checkpoint.js';
import { isUnfinished } from './concurrency.js';
import type { FailureInfo, PlanRun } from './state.js';

export interface RetryPolicy {
  /** Delay after the first failure (ms). */
  initialMs: number;
  /** The delay doubles per failure up to this (ms). */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialMs: 60_000, maxMs: 3_600_000 };

export function retryDelayMs(policy: RetryPolicy, attempts: number): number {
  const doubled = policy.initialMs * 2 ** Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(policy.maxMs, doubled);
}

/** The failure to record on the target after its run ended FATAL_ERROR. */
export function failureOf(target: TargetRecord, run: PlanRun, error: FailureInfo, nowMs: number, policy: RetryPolicy): TargetFailure {
  const attempts = (target.failure?.attempts ?? 0) + 1;
  const where = failedStep(run);
  return {
    attempts,
    at: new Date(nowMs).toISOString(),
    runId: run.id,
    code: error.code,
    message: error.message,
    ...(where ? { phase: where.phase, step: where.step } : {}),
    ...(error.object !== undefined ? { object: error.object } : {}),
    nextRetryAt: new Date(nowMs + retryDelayMs(policy, attempts)).toISOString(),
  };
}

function failedStep(run: PlanRun): { phase: string; step: string } | undefined {
  for (const ph of run.phases) for (const s of ph.steps) if (s.state.status === 'FATAL_ERROR') return { phase: ph.name, step: s.name };
  return undefined;
}

export type RetryVerdict = { kind: 'none' } | { kind: 'due'; plan: string; attempts: number } | { kind: 'waiting'; until: string; plan: string };

/** Whether the failed target should run again now. Never while another run is unfinished (it resumes instead). */
export function retryVerdict(cp: Checkpoint | undefined, nowMs: number, retryNow: boolean): RetryVerdict {
  const target = cp?.target;
  const failure = target?.failure;
  if (target === undefined || failure === undefined || isUnfinished(cp?.active)) return { kind: 'none' };
  if (retryNow || Date.parse(failure.nextRetryAt) <= nowMs) return { kind: 'due', plan: target.plan, attempts: failure.attempts };
  return { kind: 'waiting', until: failure.nextRetryAt, plan: target.plan };
}
