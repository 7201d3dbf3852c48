/** Typed errors of the Git adapters. Codes are stable; context never carries credentials. */
import { BatonError } from '../errors.js';

/** A remote URL or option Baton refuses to hand to git (option injection, `ext::` transports). */
export class GitRemoteRefusedError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('GIT_REMOTE_REFUSED', message, context);
  }
}

/** The git binary failed talking to the remote (network, authentication, missing repository). */
export class GitTransportError extends BatonError {
  constructor(operation: string, message: string, context: Record<string, unknown> = {}, cause?: unknown) {
    super('GIT_TRANSPORT', `git ${operation} failed: ${message}`, { ...context, operation }, { cause });
  }
}

/** The remote refused a push because its branch moved on (someone else pushed meanwhile). */
export class GitPushRejectedError extends BatonError {
  constructor(branch: string, message: string) {
    super('GIT_PUSH_REJECTED', `push to ${branch} was rejected: ${message}`, { branch });
  }
}

/** A path or object that should exist at a commit does not (or is of the wrong type). */
export class GitObjectError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('GIT_OBJECT', message, context);
  }
}
