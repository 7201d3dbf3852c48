/**
 * Failure classes, decided where failures arise, and the ONE function that turns a class into a
 * retry decision. Transient: the same request may succeed later (network, throttling, server errors,
 * optimistic-lock conflicts). Terminal: repeating cannot help until the desired state changes
 * (invalid object, no permission, unknown kind, failed Job, image that cannot be pulled, step timeout);
 * the plan ends as FATAL_ERROR until a new commit.
 */
import { BatonError, errorMessage } from '../errors.js';
import { KubeApiError, KubeConfigError, KubeTransportError } from '../kube/errors.js';

export type FailureClass = 'transient' | 'terminal';

export interface Failure {
  class: FailureClass;
  /** Stable, CamelCase: Network, TooManyRequests, Conflict, Invalid, Forbidden, NoSuchKind, JobFailed... */
  reason: string;
  message: string;
  /** When the server said how long to wait. */
  retryAfterSeconds?: number;
}

/** Codes of Baton's own errors that are terminal by nature (raised by the engine, src/plans/errors.ts). */
const TERMINAL_CODES: Readonly<Record<string, string>> = {
  GATE_FAILED: 'GateFailed',
  STEP_TIMEOUT: 'StepTimeout',
  FIELD_CONFLICT: 'FieldManagerConflict',
};

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

export function classify(err: unknown): Failure {
  const message = errorMessage(err);
  if (err instanceof KubeApiError) return classifyApi(err);
  if (err instanceof KubeTransportError) return { class: 'transient', reason: 'Network', message };
  if (err instanceof BatonError && TERMINAL_CODES[err.code] !== undefined) {
    // A gate failure keeps its own reason (JobFailed, ImagePullBackOff...) when it carries one.
    const reason = typeof err.context.reason === 'string' ? err.context.reason : TERMINAL_CODES[err.code];
    return { class: 'terminal', reason: reason ?? err.code, message };
  }
  if (err instanceof KubeConfigError) return { class: 'terminal', reason: 'KubeConfig', message };
  const code = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : '';
  if (SOCKET_CODES.has(code)) return { class: 'transient', reason: 'Network', message };
  // Anything else is a bug or bad input: repeating it would only repeat it.
  return { class: 'terminal', reason: err instanceof BatonError ? err.code : 'Internal', message };
}

function classifyApi(err: KubeApiError): Failure {
  const base = { message: err.message, ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}) };
  const { status, reason } = err;
  if (status === 429) return { class: 'transient', reason: 'TooManyRequests', ...base };
  if (status >= 500 || status === 0) return { class: 'transient', reason: reason === 'Unknown' ? 'ServerError' : reason, ...base };
  if (status === 410) return { class: 'transient', reason: 'Expired', ...base };
  if (status === 409) {
    // A server-side apply conflict with another field manager will not resolve itself.
    const fieldConflict = err.body.details?.causes?.some((c) => c.type === 'FieldManagerConflict') === true;
    if (fieldConflict) return { class: 'terminal', reason: 'FieldManagerConflict', ...base };
    return { class: 'transient', reason: reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict', ...base };
  }
  if (status === 404) {
    // The kind is not served at all (no CRD): terminal. A missing object (a namespace being created) may appear.
    if (err.context.discovery === true) return { class: 'terminal', reason: 'NoSuchKind', ...base };
    return { class: 'transient', reason: 'NotFound', ...base };
  }
  if (status === 401 || status === 403) return { class: 'terminal', reason: status === 401 ? 'Unauthorized' : 'Forbidden', ...base };
  if (status === 400 || status === 422) return { class: 'terminal', reason: status === 422 ? 'Invalid' : 'BadRequest', ...base };
  return { class: 'terminal', reason, ...base };
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

export interface RetryPolicy {
  /** First delay. Default 500 ms. */
  baseMs?: number;
  /** Largest delay. Default 30 s. */
  capMs?: number;
  /** Stop after this many attempts (the step timeout usually stops first). Default unlimited. */
  maxAttempts?: number;
  /** The server's Retry-After, a floor for the delay. */
  retryAfterSeconds?: number;
  /** For tests: a number in [0, 1). */
  random?: () => number;
}

/**
 * Terminal: stop. Transient: retry after base * 2^attempt, capped, with "equal jitter" (half fixed,
 * half random) so many instances failing together do not retry in step, and never below Retry-After.
 * `attempt` counts failures so far, from 0.
 */
export function retryDecision(failureClass: FailureClass, attempt: number, policy: RetryPolicy = {}): RetryDecision {
  switch (failureClass) {
    case 'terminal':
      return { retry: false };
    case 'transient': {
      if (policy.maxAttempts !== undefined && attempt + 1 >= policy.maxAttempts) return { retry: false };
      const base = policy.baseMs ?? 500;
      const cap = policy.capMs ?? 30_000;
      const ceiling = Math.min(cap, base * 2 ** Math.min(attempt, 30));
      const jittered = ceiling / 2 + (policy.random ?? Math.random)() * (ceiling / 2);
      const floor = (policy.retryAfterSeconds ?? 0) * 1000;
      return { retry: true, delayMs: Math.round(Math.max(jittered, Math.min(floor, cap))) };
    }
  }
}
