import { BatonError } from '../errors.js';

/** A Kubernetes `Status` object as the API server returns it on failure. */
export interface KubeStatus {
  kind?: 'Status';
  apiVersion?: 'v1';
  status?: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { type?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** The API server answered with an error status. `reason` is the Kubernetes reason (NotFound, Conflict...). */
export class KubeApiError extends BatonError {
  readonly status: number;
  readonly reason: string;
  readonly body: KubeStatus;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, body: KubeStatus, context: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(`KUBE_${(body.reason ?? 'Unknown').toUpperCase()}`, body.message ?? `HTTP ${status}`, { ...context, status, reason: body.reason });
    this.status = status;
    this.reason = body.reason ?? 'Unknown';
    this.body = body;
    this.retryAfterSeconds = retryAfterSeconds ?? body.details?.retryAfterSeconds;
  }
}

/** The request never got an answer (connection refused, reset, timeout). Always transient. */
export class KubeTransportError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}, cause?: unknown) {
    super('KUBE_TRANSPORT', message, context, { cause });
  }
}

/** A kubeconfig (or client options) that cannot be used: missing file, unknown context, bad server URL. */
export class KubeConfigError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}, cause?: unknown) {
    super('KUBE_CONFIG', message, context, { cause });
  }
}
