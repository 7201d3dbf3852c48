/**
 * The contract between the simulated API server (which calls the interceptor for every API request)
 * and fault injection (which decides). Kept apart so either side can change without the other.
 */
export type ApiVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface RequestInfo {
  verb: ApiVerb;
  /** '' for the core group. */
  group: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export type FaultDecision =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number }
  | { kind: 'error'; code: 429 | 500 | 503; retryAfterSeconds?: number; delayMs?: number }
  /** For watches: serve normally, then cut the connection after `afterMs`. */
  | { kind: 'drop-watch'; afterMs: number };

export interface RequestInterceptor {
  intercept(info: RequestInfo): FaultDecision;
}

/** Answers the simulator's admin endpoint (`/baton-sim/faults`) to change faults at run time. */
export interface FaultAdmin {
  handle(method: string, body: unknown): { status: number; body: unknown };
}
