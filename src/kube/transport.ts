/**
 * One HTTP exchange with the API server: auth headers, JSON bodies, a per-request deadline, and the
 * mapping of failures to KubeApiError (the server answered) or KubeTransportError (it did not).
 * Idempotent reads are retried on 429/503 honouring Retry-After, a bounded number of times; writes
 * never are (the plan engine decides, knowing whether a write may be repeated).
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { errorMessage } from '../errors.js';
import type { Connection } from './connection.js';
import { KubeApiError, KubeTransportError } from './errors.js';
import { apiError } from './status.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestSpec {
  method: HttpMethod;
  /** Path and query, e.g. `/api/v1/namespaces/x/pods?limit=5`. */
  path: string;
  body?: unknown;
  contentType?: string;
  /** Safe to repeat: retried on 429/503. */
  idempotent?: boolean;
  /**
   * A 404 answer resolves to NOT_FOUND instead of throwing: for a read or delete of one object, whose
   * absence is an answer. No error (and no stack trace) is built for it: the engine reads objects
   * before creating them (the ownership check, the first checkpoint read), so most of its 404s are
   * expected (issue #20: about 3 per instance, 2-3% of an agent's CPU).
   */
  notFoundOk?: boolean;
}

/** What `Transport.json` resolves to for a 404 when the request says `notFoundOk`. */
export const NOT_FOUND: unique symbol = Symbol('NOT_FOUND');

export interface TransportOptions {
  /** Deadline for a whole request (not for watch streams once they are open). Default 30 s. */
  timeoutMs: number;
  /** Retries of idempotent reads answered 429 or 503. Default 3. */
  readRetries: number;
  /** Cap on one Retry-After wait. Default 10 s. */
  maxRetryWaitMs: number;
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_TRANSPORT: TransportOptions = {
  timeoutMs: 30_000,
  readRetries: 3,
  maxRetryWaitMs: 10_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const RETRIED_STATUS = new Set([429, 503]);

export class Transport {
  constructor(
    private readonly conn: Connection,
    private readonly options: TransportOptions,
  ) {}

  /** The parsed JSON answer; `undefined` for an empty body; NOT_FOUND for a 404 when `spec.notFoundOk`. */
  async json(spec: RequestSpec): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(spec);
      } catch (err) {
        if (!(spec.idempotent === true && err instanceof KubeApiError && RETRIED_STATUS.has(err.status))) throw err;
        if (attempt >= this.options.readRetries) throw err;
        const waitMs = Math.min((err.retryAfterSeconds ?? 1) * 1000, this.options.maxRetryWaitMs);
        await this.options.sleep(waitMs);
      }
    }
  }

  /** Opens a streaming response (watch). Only waiting for the response head is under the deadline. */
  async stream(spec: RequestSpec, signal: AbortSignal | undefined): Promise<IncomingMessage> {
    const res = await this.open(spec, signal, true);
    if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) return res;
    const text = await readBody(res, spec);
    throw apiError(res.statusCode ?? 0, text, res.headers, { method: spec.method, path: spec.path });
  }

  close(): void {
    this.conn.agent.destroy();
    this.conn.watchAgent.destroy();
  }

  private async once(spec: RequestSpec): Promise<unknown> {
    const res = await this.open(spec, undefined, false);
    const text = await readBody(res, spec);
    const code = res.statusCode ?? 0;
    if (code === 404 && spec.notFoundOk === true) return NOT_FOUND;
    if (code < 200 || code >= 300) throw apiError(code, text, res.headers, { method: spec.method, path: spec.path });
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new KubeTransportError(`${spec.method} ${spec.path}: the server answered with invalid JSON`, { method: spec.method, path: spec.path }, err);
    }
  }

  private async open(spec: RequestSpec, signal: AbortSignal | undefined, headOnly: boolean): Promise<IncomingMessage> {
    // Appended, not resolved: a server URL may carry a path prefix (API proxies such as Rancher's).
    const url = new URL(this.conn.baseUrl.href.replace(/\/+$/, '') + spec.path);
    const headers: Record<string, string> = { accept: 'application/json', ...(await this.conn.headers()) };
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (payload !== undefined) {
      headers['content-type'] = spec.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const request = url.protocol === 'https:' ? https.request : http.request;
    const context = { method: spec.method, path: spec.path };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const agent = headOnly ? this.conn.watchAgent : this.conn.agent;
      const req = request(url, { method: spec.method, agent, headers, ...(signal ? { signal } : {}) });
      let response: IncomingMessage | undefined;
      const timer = setTimeout(() => {
        const err = new KubeTransportError(`${spec.method} ${spec.path}: no answer within ${this.options.timeoutMs} ms`, { ...context, timeoutMs: this.options.timeoutMs });
        if (response) response.destroy(err);
        else req.destroy(err);
      }, this.options.timeoutMs);
      timer.unref();
      req.on('response', (res) => {
        response = res;
        if (headOnly) clearTimeout(timer);
        else res.on('close', () => clearTimeout(timer));
        resolve(res);
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(unreachable(toTransportError(err, context), this.conn));
      });
      req.end(payload);
    });
  }
}

/** Connection failures: errno codes that mean the server was never reached. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'ETIMEDOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/**
 * A server that cannot be reached: the message names the server, the kubeconfig and context it came
 * from, and what to try, so a person knows which cluster was meant (the errno stays for scripts).
 */
function unreachable(err: Error, conn: Connection): Error {
  if (!(err instanceof KubeTransportError)) return err;
  const code = typeof err.context.code === 'string' ? err.context.code : undefined;
  if (code === undefined || !UNREACHABLE.has(code)) return err;
  const where = [`server ${conn.baseUrl.origin}`, ...(conn.origin !== undefined ? [conn.origin] : [])].join(', ');
  const hint = 'is the cluster running and the kubeconfig the right one? For the simulated cluster: baton cluster start --kubeconfig-out FILE, then export KUBECONFIG=FILE';
  return new KubeTransportError(`${err.message}: cannot reach the Kubernetes API (${where}); ${hint}`, { ...err.context, server: conn.baseUrl.origin, ...(conn.origin !== undefined ? { origin: conn.origin } : {}) }, err.cause ?? err);
}

function toTransportError(err: unknown, context: Record<string, unknown>): Error {
  if (err instanceof KubeTransportError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  const code = err instanceof Error && 'code' in err ? String((err as NodeJS.ErrnoException).code) : undefined;
  return new KubeTransportError(`${String(context.method)} ${String(context.path)}: ${errorMessage(err)}`, { ...context, ...(code ? { code } : {}) }, err);
}

function readBody(res: IncomingMessage, spec: RequestSpec): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(toTransportError(err, { method: spec.method, path: spec.path })));
    res.on('aborted', () => reject(new KubeTransportError(`${spec.method} ${spec.path}: connection closed mid-answer`, { method: spec.method, path: spec.path })));
  });
}
