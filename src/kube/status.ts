/** Turning an HTTP failure into a KubeApiError that always carries a Status, reason and Retry-After. */
import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from './object.js';
import { KubeApiError, type KubeStatus } from './errors.js';

/** The reason a real API server gives for each code, used when a proxy answers without a Status. */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function reasonForCode(code: number): string {
  return REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/** `Retry-After` is seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export function asStatus(value: unknown): KubeStatus | undefined {
  if (!isRecord(value) || value.kind !== 'Status') return undefined;
  return value;
}

export function statusFromBody(code: number, text: string): KubeStatus {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const status = asStatus(parsed);
  if (status) return { ...status, code: status.code ?? code, reason: status.reason || reasonForCode(code) };
  const message = text.trim() === '' ? `HTTP ${code}` : `HTTP ${code}: ${text.trim().slice(0, 500)}`;
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason: reasonForCode(code), message };
}

export function apiError(code: number, text: string, headers: IncomingHttpHeaders, context: Record<string, unknown>): KubeApiError {
  return new KubeApiError(code, statusFromBody(code, text), context, parseRetryAfter(headers['retry-after']));
}
