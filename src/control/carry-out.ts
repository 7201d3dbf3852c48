/**
 * Carrying out operator requests on one instance: the requests not handled yet (their ids are not in
 * the checkpoint's `handledRequests`; triggers are left to plan selection) are checked for conflicts,
 * then handed one by one, in the order they were written, to the handler of their action. Each
 * outcome (done or refused) is saved in the checkpoint with its id before the next request, so a
 * crash never carries out a request twice; the status reporter records each in Git once.
 */
import type { KubeClient } from '../kube/client.js';
import { CheckpointConflictError, HANDLED_REQUESTS_LIMIT, REQUEST_LOG_LIMIT, type Checkpoint, type CheckpointStore, type InstanceKey, type RequestRecord } from '../plans/checkpoint.js';
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
  let stored = await input.store.load(input.instance);
  const todo = pendingRequests(input.requests, stored?.checkpoint);
  if (stored === undefined) return { checkpoint: undefined, records: [], waiting: todo };
  const mask = input.mask ?? ((t: string): string => t);
  const conflicts = conflictsOf(todo, stored.checkpoint);
  const records: RequestRecord[] = [];
  for (const request of todo) {
    for (let attempt = 1; ; attempt++) {
      const outcome = await outcomeOf(input, stored.checkpoint, request, conflicts);
      const { checkpoint, record } = recorded(stored.checkpoint, request, outcome, input.now, mask);
      try {
        stored = { checkpoint, version: await input.store.save(checkpoint, stored.version) };
      } catch (err) {
        // Request records written beside a running plan (src/sync/request-lane.ts) moved the version:
        // decide again on the checkpoint as it is now.
        if (!(err instanceof CheckpointConflictError) || attempt >= SAVE_ATTEMPTS) throw err;
        const fresh = await input.store.load(input.instance);
        if (fresh === undefined) throw err;
        stored = fresh;
        if (fresh.checkpoint.handledRequests.includes(request.id)) break;
        continue;
      }
      records.push(record);
      input.emit?.({ type: 'checkpoint', instance: input.instance, checkpoint });
      input.emit?.({ type: 'request', instance: input.instance, record });
      break;
    }
  }
  return { checkpoint: stored.checkpoint, records, waiting: [] };
}

/** Saves of one request's outcome tried when another writer changed the checkpoint meanwhile. */
const SAVE_ATTEMPTS = 5;

export type RefuseBesideResult =
  /** Every new request was refused; their records are saved in `checkpoint`. */
  | { kind: 'refused'; checkpoint: Checkpoint; records: RequestRecord[] }
  /** A new request would be carried out: it acts on the running plan, so that plan must stop first. */
  | { kind: 'acts'; request: ControlRequest }
  /** Nothing to carry out (no checkpoint yet, or no new control request). */
  | { kind: 'none' };

/**
 * The requests of a commit that arrives while the instance's plan runs, decided without disturbing
 * it: when every new request is refused (an unknown plan, a resume of a plan not paused, a conflict...)
 * the refusals are saved in the checkpoint beside the running plan (its own writes merge them, see
 * plans/request-merge.ts), and nothing else changes. When one would be carried out, nothing is saved
 * and the caller lets the running step end first (the plan actions change the running run).
 * Handlers doing I/O are never called here: the actions they carry out are not plan actions.
 */
export async function refuseBeside(input: CarryOutInput): Promise<RefuseBesideResult> {
  const mask = input.mask ?? ((t: string): string => t);
  for (let attempt = 1; ; attempt++) {
    const stored = await input.store.load(input.instance);
    const todo = pendingRequests(input.requests, stored?.checkpoint);
    if (stored === undefined || todo.length === 0) return { kind: 'none' };
    const conflicts = conflictsOf(todo, stored.checkpoint);
    let checkpoint = stored.checkpoint;
    const records: RequestRecord[] = [];
    for (const request of todo) {
      const outcome = await outcomeOf({ ...input, client: undefined }, checkpoint, request, conflicts);
      if (!(outcome instanceof RequestRefusedError)) return { kind: 'acts', request };
      const next = recorded(checkpoint, request, outcome, input.now, mask);
      checkpoint = next.checkpoint;
      records.push(next.record);
    }
    try {
      await input.store.save(checkpoint, stored.version);
    } catch (err) {
      // The running plan wrote meanwhile: decide again on what it wrote.
      if (err instanceof CheckpointConflictError && attempt < SAVE_ATTEMPTS) continue;
      throw err;
    }
    for (const record of records) input.emit?.({ type: 'request', instance: input.instance, record });
    return { kind: 'refused', checkpoint, records };
  }
}

/** What the request's handler makes of it on `checkpoint` (a conflict refuses it without asking). */
async function outcomeOf(input: Omit<CarryOutInput, 'client'> & { client?: KubeClient | undefined }, checkpoint: Checkpoint, request: ControlRequest, conflicts: ReturnType<typeof conflictsOf>): Promise<HandledRequest | RequestRefusedError> {
  const conflict = conflicts.find((c) => c.ids.has(request.id));
  if (conflict !== undefined) return new RequestRefusedError('REQUEST_CONFLICT', conflict.message);
  const handler = HANDLERS[request.action];
  if (handler === undefined) return new RequestRefusedError('ACTION_UNSUPPORTED', `this agent does not carry out ${request.action} requests`);
  const ctx = { instance: input.instance, checkpoint, plans: input.plans, now: input.now, ...(input.sourceCommit ? { sourceCommit: input.sourceCommit } : {}), ...(input.client ? { client: input.client } : {}) };
  try {
    return await handler.handle(ctx, request);
  } catch (err) {
    // Anything but a refusal (the cluster unreachable...) leaves the request for the next look.
    if (!(err instanceof RequestRefusedError)) throw err;
    return err;
  }
}

/** The checkpoint after `outcome`, with the request's id handled and its record logged (masked). */
function recorded(before: Checkpoint, request: ControlRequest, outcome: HandledRequest | RequestRefusedError, now: string, mask: TextMask): { checkpoint: Checkpoint; record: RequestRecord } {
  const record = recordOf(request, outcome, now, mask);
  const next = outcome instanceof RequestRefusedError ? before : outcome.checkpoint;
  const checkpoint = maskCheckpoint({
    ...next,
    handledRequests: [request.id, ...next.handledRequests.filter((id) => id !== request.id)].slice(0, HANDLED_REQUESTS_LIMIT),
    requestLog: [record, ...(next.requestLog ?? [])].slice(0, REQUEST_LOG_LIMIT),
  }, mask);
  return { checkpoint, record };
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
