/** Errors the engine raises itself; each knows its failure class (see classify in hooks.ts). */
import { BatonError } from '../errors.js';
import { KubeApiError } from '../kube/errors.js';
import { refLabel, type ObjectRef } from '../kube/object.js';

/** Server-side apply refused: another field manager owns a field. Terminal unless the task says `force: true`. */
export class FieldConflictError extends BatonError {
  readonly managers: string[];
  constructor(ref: ObjectRef, managers: string[], fields: string[], cause: KubeApiError) {
    const who = managers.length > 0 ? managers.map((m) => `"${m}"`).join(', ') : 'another field manager';
    super(
      'FIELD_CONFLICT',
      `${refLabel(ref)}: field${fields.length === 1 ? '' : 's'} ${fields.join(', ') || '(unknown)'} owned by ${who}; ` +
        'Baton does not force silently: set `force: true` on the task to take ownership',
      { object: refLabel(ref), managers, fields },
      { cause },
    );
    this.managers = managers;
  }

  /** Parses the managers and fields out of the API server's conflict Status. */
  static from(ref: ObjectRef, err: KubeApiError): FieldConflictError {
    const texts = [err.body.message ?? '', ...(err.body.details?.causes ?? []).map((c) => c.message ?? '')];
    const managers = new Set<string>();
    for (const t of texts) for (const m of t.matchAll(/conflict with "([^"]+)"/g)) if (m[1]) managers.add(m[1]);
    const fields = (err.body.details?.causes ?? []).map((c) => c.field).filter((f): f is string => typeof f === 'string' && f !== '');
    return new FieldConflictError(ref, [...managers], fields, err);
  }
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
