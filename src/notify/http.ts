/**
 * One HTTP call of a notification, classified for the dispatcher: delivered, worth retrying (network
 * errors, timeouts, 5xx, 429, GitHub's rate-limit 403) with the wait the server asked for, or failed
 * for good (other 4xx: a wrong URL or token does not get better by retrying). Bodies of error
 * responses are cut short; the caller masks them before they are logged.
 */

export interface HttpRequest {
  method: 'POST' | 'PATCH' | 'PUT' | 'GET';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export type DeliveryResult =
  | { ok: true; status: number; body: string }
  | { ok: false; retry: boolean; status?: number; retryAfterMs?: number; message: string };

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** `Retry-After` (seconds or an HTTP date) or GitHub's `x-ratelimit-reset` (epoch seconds), in ms from now. */
export function retryAfterMs(headers: { get(name: string): string | null }, now = Date.now()): number | undefined {
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = Number(after);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
    if (Number.isFinite(ms)) return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  }
  if (headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.min(Math.max(reset * 1000 - now, 0), MAX_RETRY_AFTER_MS);
  }
  return undefined;
}

/** Classifies a response status (with its headers) the same way for every provider. */
export function classify(status: number, headers: { get(name: string): string | null }, body: string): DeliveryResult {
  if (status >= 200 && status < 300) return { ok: true, status, body };
  const wait = retryAfterMs(headers);
  const rateLimited = status === 429 || (status === 403 && headers.get('x-ratelimit-remaining') === '0');
  const retry = rateLimited || status === 408 || status >= 500;
  const text = body.replace(/\s+/g, ' ').trim().slice(0, 200);
  return { ok: false, retry, status, ...(wait !== undefined ? { retryAfterMs: wait } : {}), message: `HTTP ${status}${text ? `: ${text}` : ''}` };
}

export async function sendHttp(request: HttpRequest, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<DeliveryResult> {
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    return { ok: false, retry: true, message: transportMessage(err) };
  }
  const body = await response.text().catch(() => '');
  return classify(response.status, response.headers, body);
}

/** A network failure in one line, without the URL (a Slack webhook URL is itself a secret). */
export function transportMessage(err: unknown): string {
  const e = err as { name?: unknown; code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  if (e?.name === 'TimeoutError') return 'timed out';
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e?.cause?.message === 'string' ? e.cause.message : typeof e?.message === 'string' ? e.message : String(err);
  return (code ?? message).replace(/https?:\/\/\S+/g, '<url>');
}
