import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/errors.js';
import { KubeApiError, KubeConfigError, KubeTransportError, type KubeStatus } from '../../src/kube/errors.js';
import { classify, retryDecision, type FailureClass, type RetryDecision, type RetryPolicy } from '../../src/plans/failure.js';

// The engine's own errors (src/plans/errors.ts) are recognised by their stable codes.
const gateFailed = (reason: string, message: string): BatonError => new BatonError('GATE_FAILED', message, { reason });

const api = (code: number, reason: string, extra: Partial<KubeStatus> = {}, context: Record<string, unknown> = {}): KubeApiError =>
  new KubeApiError(code, { kind: 'Status', code, reason, message: `${reason} happened`, ...extra }, context);

describe('classify: every failure gets a class where it arises', () => {
  it.each([
    ['a refused connection', new KubeTransportError('connect ECONNREFUSED'), 'transient', 'Network'],
    ['a raw socket reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'transient', 'Network'],
    ['429 throttling', api(429, 'TooManyRequests'), 'transient', 'TooManyRequests'],
    ['500 internal error', api(500, 'InternalError'), 'transient', 'InternalError'],
    ['503 unavailable', api(503, 'ServiceUnavailable'), 'transient', 'ServiceUnavailable'],
    ['409 optimistic-lock conflict on update', api(409, 'Conflict'), 'transient', 'Conflict'],
    ['410 Gone on a watch', api(410, 'Expired'), 'transient', 'Expired'],
    ['404 of an object (a namespace still being created)', api(404, 'NotFound'), 'transient', 'NotFound'],
    ['404 of a kind the server does not serve', api(404, 'NotFound', {}, { discovery: true }), 'terminal', 'NoSuchKind'],
    ['422 invalid object', api(422, 'Invalid'), 'terminal', 'Invalid'],
    ['400 bad request', api(400, 'BadRequest'), 'terminal', 'BadRequest'],
    ['401 unauthorized', api(401, 'Unauthorized'), 'terminal', 'Unauthorized'],
    ['403 forbidden', api(403, 'Forbidden'), 'terminal', 'Forbidden'],
    ['409 apply conflict with another field manager', api(409, 'Conflict', { details: { causes: [{ type: 'FieldManagerConflict', field: '.spec.replicas' }] } }), 'terminal', 'FieldManagerConflict'],
    ['415 unsupported media type', api(415, 'UnsupportedMediaType'), 'terminal', 'UnsupportedMediaType'],
    ['a failed Job reported by its gate', gateFailed('JobFailed', 'job backup failed: BackoffLimitExceeded'), 'terminal', 'JobFailed'],
    ['an image that cannot be pulled past its grace', gateFailed('ImagePullBackOff', 'pod zk-1: ImagePullBackOff'), 'terminal', 'ImagePullBackOff'],
    ['a step timeout', new BatonError('STEP_TIMEOUT', 'step servers did not finish within 10m'), 'terminal', 'StepTimeout'],
    ['an unusable kubeconfig', new KubeConfigError('no context'), 'terminal', 'KubeConfig'],
    ['a field manager conflict the engine raised', new BatonError('FIELD_CONFLICT', 'owned by "kubectl"'), 'terminal', 'FieldManagerConflict'],
    ['another Baton error', new BatonError('RENDER_FAILED', 'template broke'), 'terminal', 'RENDER_FAILED'],
    ['a programming error', new TypeError('x is undefined'), 'terminal', 'Internal'],
  ])('%s is %s (%s)', (_name, err, cls, reason) => {
    const failure = classify(err);
    expect(failure.class).toBe(cls);
    expect(failure.reason).toBe(reason);
    expect(failure.message).toBe((err).message);
  });

  it('keeps the server Retry-After on the failure', () => {
    expect(classify(new KubeApiError(429, { reason: 'TooManyRequests' }, {}, 7)).retryAfterSeconds).toBe(7);
  });
});

describe('retryDecision: one place maps a class to retry or stop', () => {
  const mid = (): number => 0.5;
  const low = (): number => 0;
  const high = (): number => 0.999999;
  it.each<[string, FailureClass, number, RetryPolicy, RetryDecision]>([
    ['terminal failures stop at once', 'terminal', 0, {}, { retry: false }],
    ['the first transient retry waits about the base delay', 'transient', 0, { random: mid }, { retry: true, delayMs: 375 }],
    ['delays double with each attempt', 'transient', 3, { random: mid }, { retry: true, delayMs: 3000 }],
    ['delays are capped at 30 s', 'transient', 20, { random: mid }, { retry: true, delayMs: 22500 }],
    ['jitter spans half the delay to the full delay (low end)', 'transient', 2, { random: low }, { retry: true, delayMs: 1000 }],
    ['jitter spans half the delay to the full delay (high end)', 'transient', 2, { random: high }, { retry: true, delayMs: 2000 }],
    ['a server Retry-After is a floor', 'transient', 0, { random: mid, retryAfterSeconds: 5 }, { retry: true, delayMs: 5000 }],
    ['a Retry-After above the cap is capped', 'transient', 0, { random: mid, retryAfterSeconds: 600 }, { retry: true, delayMs: 30000 }],
    ['a bounded policy stops after its last attempt', 'transient', 4, { maxAttempts: 5 }, { retry: false }],
  ])('%s', (_name, cls, attempt, policy, expected) => {
    expect(retryDecision(cls, attempt, policy)).toEqual(expected);
  });
});
