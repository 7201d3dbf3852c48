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
 * Operators and canary strategies add plan states (docs/operations.md):
 *
 *   IN_PROGRESS -> PAUSED -> IN_PROGRESS   (`baton plan pause|resume`: the running step's applies finish first)
 *   IN_PROGRESS -> WAITING -> IN_PROGRESS  (a canary strategy waits for `baton plan continue`)
 *   any unfinished -> STOPPED              (`baton plan stop`: the run ends, its state is kept)
 *
 * A step marked done by `baton plan force-complete` is COMPLETE with `forced`; a step or phase carried
 * over into a retry or restart from an earlier run is COMPLETE with `carriedFrom`.
 *
 * Times are ISO-8601 strings so a state is plain JSON (it is checkpointed and written to Git as is).
 */
import type { Strategy } from '../render/types.js';

export type Status = RunState['status'];

export interface FailureInfo {
  /** Stable code of the error (e.g. `KUBE_INVALID`, `STEP_TIMEOUT`, `GATE_FAILED`). */
  code: string;
  message: string;
  /** The object the failure concerns, as `Kind ns/name`, when there is one. */
  object?: string;
}

/** Who asked for an operator action, and why (recorded with the state it caused). */
export interface ControlStamp {
  /** The request id (Git) or the id of a direct command. */
  requestId: string;
  by?: string;
  reason?: string;
  at: string;
}

/** Where a canary strategy waits: after `after` (a step of `phase`, or a phase of the plan when `phase` is absent). */
export interface CanaryWait {
  phase?: string;
  after: string;
  /** The continues this point needs: 1 after the first step (phase), 2 after the second. */
  continues: number;
}

export type RunState =
  | { status: 'NEVER_RUN' }
  | { status: 'PENDING'; message: string }
  | { status: 'IN_PROGRESS'; startedAt: string; message: string }
  | { status: 'ERROR'; startedAt: string; message: string; error: FailureInfo; attempt: number }
  | { status: 'COMPLETE'; startedAt: string; finishedAt: string; message: string; forced?: ControlStamp; carriedFrom?: string }
  | { status: 'FATAL_ERROR'; startedAt: string; finishedAt: string; message: string; error: FailureInfo }
  /** Plans only: paused by an operator; nothing starts until resumed. */
  | { status: 'PAUSED'; startedAt: string; message: string; paused: ControlStamp }
  /** Plans only: a canary strategy waits for `baton plan continue` at each of `waits`. */
  | { status: 'WAITING'; startedAt: string; message: string; since: string; waits: CanaryWait[] }
  /** Plans only: stopped by an operator; the run is over, its steps keep their states. */
  | { status: 'STOPPED'; startedAt: string; finishedAt: string; message: string; stopped: ControlStamp };

export interface StepRecord {
  name: string;
  state: RunState;
}

export interface PhaseRecord {
  name: string;
  strategy: Strategy;
  state: RunState;
  steps: StepRecord[];
  /** Canary strategies: `baton plan continue` received for this phase so far. */
  continued?: number;
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
  /** Canary plan strategy: `baton plan continue` received for the plan's phases so far. */
  continued?: number;
}

export function isFinished(state: RunState): boolean {
  return state.status === 'COMPLETE' || state.status === 'FATAL_ERROR' || state.status === 'STOPPED';
}

/** A plan held by an operator or a canary wait: not resumed on its own, only by resume or continue. */
export function isHeld(state: RunState): state is Extract<RunState, { status: 'PAUSED' | 'WAITING' }> {
  return state.status === 'PAUSED' || state.status === 'WAITING';
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
