/**
 * What the engine needs from readiness gates and failure classes, as an interface so the engine never
 * switches on kinds or status codes itself. defaults.ts wires the real gates (src/plans/gates/) and
 * failure classes (src/plans/failure.ts); unit tests inject their own.
 */
import type { KubeObject } from '../kube/object.js';
import { FieldConflictError, GateFailedError, StepTimeoutError } from './errors.js';
import { CheckpointConflictError } from './checkpoint.js';

// The gates' own types: one definition, shared by the engine and the gates (src/plans/gates/types.ts).
import type { GateContext, GateResult } from './gates/types.js';
export type { GateContext } from './gates/types.js';
export type GateVerdict = GateResult;

export interface FailureClass {
  class: 'transient' | 'terminal';
  reason: string;
  message: string;
  retryAfterSeconds?: number;
}

export interface EngineHooks {
  gate(obj: KubeObject, ctx: GateContext): GateVerdict;
  /**
   * Refines a workload's verdict with its pods (names the troubled pod; fails on unpullable images). First
   * asked with no pods, on the apply answers: a `done` then ends the step without watching anything.
   */
  explain(obj: KubeObject, verdict: GateVerdict, pods: readonly KubeObject[], ctx: GateContext): GateVerdict;
  classify(err: unknown): FailureClass;
  /** Backoff after `attempt` failures so far (0-based) of a transient failure; `undefined` stops retrying. */
  retryDelayMs(failure: FailureClass, attempt: number): number | undefined;
}

/** The engine's own errors carry their class; everything else goes to the hooks' classifier. */
export function classifyWith(hooks: EngineHooks, err: unknown): FailureClass {
  if (err instanceof FieldConflictError || err instanceof StepTimeoutError || err instanceof GateFailedError || err instanceof CheckpointConflictError) {
    return { class: 'terminal', reason: err.code, message: err.message };
  }
  return hooks.classify(err);
}
