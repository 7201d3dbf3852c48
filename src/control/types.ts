/** The shapes of operator requests as the control module carries them out (docs/operations.md). */
import type { KubeClient } from '../kube/client.js';
import type { Checkpoint, InstanceKey, RequestRecord } from '../plans/checkpoint.js';
import { BatonError } from '../errors.js';
import type { OperatorRequest } from '../sync/request-file.js';

/** A request with where it came from: a request file (`git`) or a command against the cluster (`direct`). */
export interface ControlRequest extends OperatorRequest {
  via: RequestRecord['via'];
}

export interface HandlerContext {
  instance: InstanceKey;
  /** The checkpoint as the earlier requests of the batch left it. */
  checkpoint: Checkpoint;
  /** The plans the desired framework version defines. */
  plans: readonly string[];
  /** ISO time of this look. */
  now: string;
  /** The user's commit of this look: a run a retry or restart starts names it. */
  sourceCommit?: string;
  /** The cluster, for actions that act on it (pod actions); plan actions only change the checkpoint. */
  client?: KubeClient;
}

/** What a handler made of a request: the checkpoint after it, and the transition to record. */
export interface HandledRequest {
  checkpoint: Checkpoint;
  /** The transition's name in Git (`Baton-Event`): `plan-paused`, `step-force-completed`, ... */
  event: string;
  /** One line for people: `paused deploy after the running step`. */
  message: string;
  plan?: string;
  runId?: string;
  phase?: string;
  step?: string;
}

export interface RequestHandler {
  handle(ctx: HandlerContext, request: ControlRequest): Promise<HandledRequest> | HandledRequest;
}

export type RefusalCode =
  | 'PLAN_UNKNOWN' | 'PHASE_UNKNOWN' | 'STEP_UNKNOWN' | 'PLAN_NOT_RUNNING' | 'PLAN_NEVER_RAN' | 'PLAN_NOT_PAUSED'
  | 'PLAN_ALREADY_PAUSED' | 'PLAN_NOT_WAITING' | 'PLAN_NOT_FAILED' | 'STEP_COMPLETE' | 'REQUEST_CONFLICT' | 'ACTION_UNSUPPORTED';

/** A request that cannot be carried out: recorded as refused, nothing else changes. */
export class RequestRefusedError extends BatonError {
  constructor(readonly refusal: RefusalCode, message: string, context: Record<string, unknown> = {}) {
    super(refusal, message, context);
  }
}
