/**
 * Applying the fault interceptor's decision to one API request: wait, answer with an error Status
 * (429 with Retry-After, 500, 503), or mark a watch to be cut after a while.
 */
import type { ServerResponse } from 'node:http';
import type { FaultDecision, RequestInfo, RequestInterceptor } from '../faults/types.js';
import { sendStatus } from './respond.js';

export type FaultOutcome = { kind: 'proceed' } | { kind: 'drop-watch'; afterMs: number } | { kind: 'answered' };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const ERRORS = {
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: { reason: 'ServiceUnavailable', message: 'The server is currently unable to handle the request' },
} as const;

/** The answer to an injected error: code, reason, message and Retry-After (seconds), over HTTP or in-process. */
export interface FaultAnswer {
  code: 429 | 500 | 503;
  reason: string;
  message: string;
  retryAfterSeconds: number | undefined;
}

export function faultAnswer(decision: Extract<FaultDecision, { kind: 'error' }>): FaultAnswer {
  const e = ERRORS[decision.code];
  const retryAfterSeconds = decision.retryAfterSeconds ?? (decision.code === 429 ? 1 : undefined);
  return { code: decision.code, reason: e.reason, message: e.message, retryAfterSeconds };
}

export async function applyDecision(interceptor: RequestInterceptor | undefined, info: RequestInfo, res: ServerResponse): Promise<FaultOutcome> {
  if (!interceptor) return { kind: 'proceed' };
  const decision = interceptor.intercept(info);
  switch (decision.kind) {
    case 'pass':
      return { kind: 'proceed' };
    case 'delay':
      await sleep(decision.ms);
      return { kind: 'proceed' };
    case 'drop-watch':
      return info.verb === 'watch' ? { kind: 'drop-watch', afterMs: decision.afterMs } : { kind: 'proceed' };
    case 'error': {
      if (decision.delayMs) await sleep(decision.delayMs);
      const e = faultAnswer(decision);
      const retry = e.retryAfterSeconds;
      const headers: Record<string, string> = retry !== undefined ? { 'Retry-After': String(retry) } : {};
      sendStatus(res, e.code, e.reason, e.message, headers, retry !== undefined ? { retryAfterSeconds: retry } : {});
      return { kind: 'answered' };
    }
  }
}
