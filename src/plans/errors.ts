/** Errors the engine raises itself; each knows its failure class (see classify in hooks.ts). */
import { BatonError } from '../errors.js';
import { KubeApiError } from '../kube/errors.js';
import { refLabel, type ObjectRef } from '../kube/object.js';
import type { FieldConflict } from './ownership.js';

/**
 * Server-side apply refused: another field manager owns a field with a different value, and the
 * object's conflict policy is `Fail` (its task says `force: false`, or it is annotated
 * `baton.dev/conflicts: Fail`), or a `Report` object's fields could not be left out. Terminal.
 */
export class FieldConflictError extends BatonError {
  readonly managers: string[];
  readonly conflicts: FieldConflict[];
  constructor(ref: ObjectRef, conflicts: FieldConflict[], cause: KubeApiError, why = POLICY_FAIL) {
    const managers = [...new Set(conflicts.map((c) => c.manager).filter((m) => m !== ''))];
    const fields = [...new Set(conflicts.map((c) => c.field).filter((f) => f !== ''))];
    const who = managers.length > 0 ? managers.map((m) => `"${m}"`).join(', ') : 'another field manager';
    super(
      'FIELD_CONFLICT',
      `${refLabel(ref)}: field${fields.length === 1 ? '' : 's'} ${fields.join(', ') || '(unknown)'} owned by ${who}; ${why}`,
      { object: refLabel(ref), managers, fields },
      { cause },
    );
    this.managers = managers;
    this.conflicts = conflicts;
  }

  /** Parses the managers and fields out of the API server's conflict Status. */
  static from(ref: ObjectRef, err: KubeApiError, why?: string): FieldConflictError {
    return new FieldConflictError(ref, conflictsOf(err), err, why);
  }
}

const POLICY_FAIL = 'the object does not take fields from other managers (its task says `force: false` or it is annotated baton.dev/conflicts: Fail): ' +
  'change the value in Git to the live one, or drop that setting so Git wins';

/** One entry per conflicting field, from the `details.causes` of a 409 apply answer (or its message). */
export function conflictsOf(err: KubeApiError): FieldConflict[] {
  const managerIn = (text: string): string => /conflict with "([^"]+)"/.exec(text)?.[1] ?? '';
  const causes = err.body.details?.causes ?? [];
  const out = causes
    .filter((c) => typeof c.field === 'string' && c.field !== '')
    .map((c) => ({ field: c.field ?? '', manager: managerIn(c.message ?? '') }));
  if (out.length > 0) return out;
  // No causes: the message alone (`conflict with "kubectl" using apps/v1: .spec.replicas`).
  return [...(err.body.message ?? '').matchAll(/conflict with "([^"]+)"[^:]*: (\S+)/g)].map((m) => ({ manager: m[1] ?? '', field: m[2] ?? '' }));
}

export class StepTimeoutError extends BatonError {
  constructor(step: string, timeoutSeconds: number, lastWait: string | undefined) {
    super('STEP_TIMEOUT', `step ${step} did not finish within ${formatSeconds(timeoutSeconds)}${lastWait ? `; still waiting on ${lastWait}` : ''}`, {
      step,
      timeoutSeconds,
    });
  }
}

/** A readiness gate said the object failed (failed Job, image that cannot be pulled, ...). */
export class GateFailedError extends BatonError {
  constructor(object: string, reason: string, message: string) {
    super('GATE_FAILED', `${object}: ${message}`, { object, reason });
  }
}

export class PlanNotFoundError extends BatonError {
  constructor(plan: string, available: readonly string[]) {
    super('PLAN_UNKNOWN', `plan ${plan} is not defined (available: ${available.join(', ') || 'none'})`, { plan, available: [...available] });
  }
}

function formatSeconds(s: number): string {
  return s % 60 === 0 ? `${s / 60}m` : `${s}s`;
}
