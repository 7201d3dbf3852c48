/** Typed errors of composition (generated values, dependencies, pipes, child instances). */
import { BatonError } from '../errors.js';

export type ComposeErrorCode =
  /** The Secret holding generated values could not be read or written (transient: retried). */
  | 'GENERATED_UNREACHABLE'
  /** Another process wrote the generated values' Secret at the same time (retried). */
  | 'GENERATED_CONFLICT'
  /** Generated values are needed and no cluster is at hand to keep them in. */
  | 'GENERATED_NO_CLUSTER'
  /** A rotation names a parameter that is not generated. */
  | 'GENERATED_ROTATE_UNKNOWN';

export class ComposeError extends BatonError {
  declare readonly code: ComposeErrorCode;
  constructor(code: ComposeErrorCode, message: string, context: Record<string, unknown> = {}) {
    super(code, message, context);
  }
}
