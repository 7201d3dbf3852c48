/**
 * Carrying out operator requests on one instance: the requests not handled yet (their ids are not in
 * the checkpoint's `handledRequests`; triggers are left to plan selection) are checked for conflicts,
 * then handed one by one, in the order they were written, to the handler of their action. Each
 * outcome (done or refused) is saved in the checkpoint with its id before the next request, so a
 * crash never carries out a request twice; the status reporter records each in Git once.
 */
import type { KubeClient } from '../kube/client.js';
import { HANDLED_REQUESTS_LIMIT, REQUEST_LOG_LIMIT, type Checkpoint, type CheckpointStore, type InstanceKey, type RequestRecord } from '../plans/checkpoint.js';
import type { EventListener } from '../plans/events.js';
import { maskCheckpoint, type TextMask } from '../plans/session.js';
import { conflictsOf } from './conflicts.js';
import { HANDLERS } from './handlers.js';
import { RequestRefusedError, type ControlRequest, type HandledRequest } from './types.js';

export interface CarryOutInput {
  store: CheckpointStore;
  instance: InstanceKey;
  /** Every request of the instance's file (or the one direct command); handled ones are skipped. */
  requests: readonly ControlRequest[];
  /** The plans the desired framework version defines. */
  plans: readonly string[];
  now: string;
  sourceCommit?: string;
  client?: KubeClient;
  emit?: EventListener;
  /** Masks sensitive values in what is saved and announced. */
  mask?: TextMask;
}

export interface CarryOutResult {
  /** The checkpoint after the requests (undefined when the instance has none yet). */
  checkpoint: Checkpoint | undefined;
  /** What was carried out or refused now, in order. */
  records: RequestRecord[];
  /** Requests left for later: the instance has no checkpoint yet (nothing ran for it). */
  waiting: ControlRequest[];
}

/**
 * Actions carried out elsewhere: plan selection runs triggers (src/plans/selection.ts), the recovery
 * pass runs pod actions (src/recovery/, src/sync/recovery-loop.ts). Refusing them here as unsupported
 * would mark them handled before their owner sees them.
 */
const CARRIED_OUT_ELSEWHERE: ReadonlySet<string> = new Set(['trigger', 'pod-restart', 'pod-replace']);

/** The requests of `requests` still to carry out here. */
export function pendingRequests(requests: readonly ControlRequest[], cp: Checkpoint | undefined): ControlRequest[] {
  const handled = new Set(cp?.handledRequests ?? []);
  return requests.filter((r) => !CARRIED_OUT_ELSEWHERE.has(r.action) && !handled.has(r.id));
}

export async function carryOutRequests(input: CarryOutInput): Promise<CarryOutResult> {
  const stored = await input.store.load(input.instance);
  const todo = pendingRequests(input.requests, stored?.checkpoint);
  if (stored === undefined) return { checkpoint: undefined, records: [], waiting: todo };
  let { checkpoint, version } = stored;
  const mask = input.mask ?? ((t: string): string => t);
  const conflicts = conflictsOf(todo, checkpoint);
  const records: RequestRecord[] = [];
  for (const request of todo) {
    const conflict = conflicts.find((c) => c.ids.has(request.id));
    const ctx = { instance: input.instance, checkpoint, plans: input.plans, now: input.now, ...(input.sourceCommit ? { sourceCommit: input.sourceCommit } : {}), ...(input.client ? { client: input.client } : {}) };
    let outcome: HandledRequest | RequestRefusedError;
    if (conflict !== undefined) outcome = new RequestRefusedError('REQUEST_CONFLICT', conflict.message);
    else {
      const handler = HANDLERS[request.action];
      try {
        outcome = handler === undefined
          ? new RequestRefusedError('ACTION_UNSUPPORTED', `this agent does not carry out ${request.action} requests`)
          : await handler.handle(ctx, request);
      } catch (err) {
        // Anything but a refusal (the cluster unreachable...) leaves the request for the next look.
        if (!(err instanceof RequestRefusedError)) throw err;
        outcome = err;
      }
    }
    const record = recordOf(request, outcome, input.now, mask);
    const next = outcome instanceof RequestRefusedError ? checkpoint : outcome.checkpoint;
    const saved = maskCheckpoint({
      ...next,
      handledRequests: [request.id, ...next.handledRequests.filter((id) => id !== request.id)].slice(0, HANDLED_REQUESTS_LIMIT),
      requestLog: [record, ...(next.requestLog ?? [])].slice(0, REQUEST_LOG_LIMIT),
    }, mask);
    version = await input.store.save(saved, version);
    checkpoint = saved;
    records.push(record);
    input.emit?.({ type: 'checkpoint', instance: input.instance, checkpoint });
    input.emit?.({ type: 'request', instance: input.instance, record });
  }
  return { checkpoint, records, waiting: [] };
}

function recordOf(r: ControlRequest, outcome: HandledRequest | RequestRefusedError, at: string, mask: TextMask): RequestRecord {
  const base = {
    id: r.id, action: r.action, via: r.via, at,
    ...(r.requestedBy ? { by: r.requestedBy } : {}), ...(r.reason ? { reason: mask(r.reason) } : {}), ...(r.pod ? { pod: r.pod } : {}),
  };
  if (outcome instanceof RequestRefusedError) {
    return { ...base, result: 'refused', event: 'request-refused', code: outcome.refusal, message: mask(outcome.message), ...(r.plan ? { plan: r.plan } : {}), ...(r.phase ? { phase: r.phase } : {}), ...(r.step ? { step: r.step } : {}) };
  }
  const o = outcome;
  return {
    ...base, result: 'done', event: o.event, message: mask(o.message),
    ...(o.plan ?? r.plan ? { plan: o.plan ?? r.plan } : {}), ...(o.runId ? { runId: o.runId } : {}),
    ...(o.phase ?? r.phase ? { phase: o.phase ?? r.phase } : {}), ...(o.step ?? r.step ? { step: o.step ?? r.step } : {}),
  };
}
