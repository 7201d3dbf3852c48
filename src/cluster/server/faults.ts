/**
 * Applying the fault interceptor's decision to one API request: wait, answer with an error Status
 * (429 with Retry-After, 500, 503), or mark a watch to be cut after a while.
 */
import type { ServerResponse } from 'node:http';
import type { RequestInfo, RequestInterceptor } from '../faults/types.js';
import { sendStatus } from './respond.js';

export type FaultOutcome = { kind: 'proceed' } | { kind: 'drop-watch'; afterMs: number } | { kind: 'answered' };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const ERRORS = {
  429: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.' },
  500: { reason: 'InternalError', message: 'Internal error occurred: injected fault' },
  503: { reason: 'ServiceUnavailable', message: 'The server is currently unable to handle the request' },
} as const;

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
      const e = ERRORS[decision.code];
      const retry = decision.retryAfterSeconds ?? (decision.code === 429 ? 1 : undefined);
      const headers: Record<string, string> = retry !== undefined ? { 'Retry-After': String(retry) } : {};
      sendStatus(res, decision.code, e.reason, e.message, headers, retry !== undefined ? { retryAfterSeconds: retry } : {});
      return { kind: 'answered' };
    }
  }
}
