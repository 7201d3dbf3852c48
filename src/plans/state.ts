/**
 * Plan, phase and step states, as KUDO modelled them, as discriminated unions: each variant carries
 * only the fields valid for it (a failed step has an error; a pending one has none).
 *
 *   NEVER_RUN -> PENDING -> IN_PROGRESS -> COMPLETE
 *                               |   ^
 *                               v   |  (transient failure, retried with backoff)
 *                              ERROR
 *                               |
 *                               v  (terminal failure or timeout: stops until the desired state changes)
 *                           FATAL_ERROR
 *
 * Times are ISO-8601 strings so a state is plain JSON (it is checkpointed and written to Git as is).
 */
import type { Strategy } from '../render/types.js';

export type Status = 'NEVER_RUN' | 'PENDING' | 'IN_PROGRESS' | 'COMPLETE' | 'ERROR' | 'FATAL_ERROR';

export interface FailureInfo {
  /** Stable code of the error (e.g. `KUBE_INVALID`, `STEP_TIMEOUT`, `GATE_FAILED`). */
  code: string;
  message: string;
  /** The object the failure concerns, as `Kind ns/name`, when there is one. */
  object?: string;
}

export type RunState =
  | { status: 'NEVER_RUN' }
  | { status: 'PENDING'; message: string }
  | { status: 'IN_PROGRESS'; startedAt: string; message: string }
  | { status: 'ERROR'; startedAt: string; message: string; error: FailureInfo; attempt: number }
  | { status: 'COMPLETE'; startedAt: string; finishedAt: string; message: string }
  | { status: 'FATAL_ERROR'; startedAt: string; finishedAt: string; message: string; error: FailureInfo };

export interface StepRecord {
  name: string;
  state: RunState;
}

export interface PhaseRecord {
  name: string;
  strategy: Strategy;
  state: RunState;
  steps: StepRecord[];
}

/** One run of a plan: what the checkpoint and the status file record. */
export interface PlanRun {
  /** Unique per run, so events and history entries can be correlated. */
  id: string;
  plan: string;
  /** Why selection chose it ("values changed: REPLICAS", "manual request r-12"). */
  reason: string;
  /** One-shot arguments of a requested plan; re-used when a killed run resumes. */
  args: Record<string, string>;
  frameworkVersion: string;
  /**
   * The commit whose desired state this run applies (for the GitOps agent the user's commit, never one
   * of its own status commits), kept so a resumed run still names it. Absent outside Git (`baton apply`).
   */
  sourceCommit?: string;
  strategy: Strategy;
  state: RunState;
  phases: PhaseRecord[];
}

export function isFinished(state: RunState): boolean {
  return state.status === 'COMPLETE' || state.status === 'FATAL_ERROR';
}

export function startedAtOf(state: RunState, fallback: string): string {
  return 'startedAt' in state ? state.startedAt : fallback;
}

export const pending = (message = 'waiting to start'): RunState => ({ status: 'PENDING', message });

export function inProgress(prev: RunState, now: string, message: string): RunState {
  return { status: 'IN_PROGRESS', startedAt: startedAtOf(prev, now), message };
}

export function complete(prev: RunState, now: string, message: string): RunState {
  return { status: 'COMPLETE', startedAt: startedAtOf(prev, now), finishedAt: now, message };
}

export function errored(prev: RunState, now: string, error: FailureInfo, attempt: number): RunState {
  return { status: 'ERROR', startedAt: startedAtOf(prev, now), message: error.message, error, attempt };
}

export function fatal(prev: RunState, now: string, error: FailureInfo): RunState {
  return { status: 'FATAL_ERROR', startedAt: startedAtOf(prev, now), finishedAt: now, message: error.message, error };
}
