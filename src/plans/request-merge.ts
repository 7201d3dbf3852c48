/**
 * The request bookkeeping of a checkpoint (`handledRequests`, `requestLog`) has two writers: the
 * worker running the instance's plan, and the agent recording operator requests it refuses while that
 * plan runs (src/sync/request-lane.ts), so a refused request never interrupts the plan. These merge
 * what the other writer added; everything else of a checkpoint has one writer at a time. Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import { HANDLED_REQUESTS_LIMIT, REQUEST_LOG_LIMIT, type Checkpoint } from './checkpoint.js';

/** The checkpoint without its request bookkeeping, as plain JSON (undefined fields dropped). */
function withoutRequests(cp: Checkpoint): unknown {
  const { handledRequests: _handled, requestLog: _log, ...rest } = cp;
  return JSON.parse(JSON.stringify(rest)) as unknown;
}

/** Whether `a` and `b` differ in nothing but their request bookkeeping. */
export function differOnlyInRequests(a: Checkpoint, b: Checkpoint): boolean {
  return isDeepStrictEqual(withoutRequests(a), withoutRequests(b));
}

/**
 * `base` with the request ids and records of `other` it lacks (newest first, within the limits).
 * Idempotent: merging the same records twice adds nothing.
 */
export function withRequestsOf(base: Checkpoint, other: Checkpoint): Checkpoint {
  const handled = new Set(base.handledRequests);
  const addedIds = other.handledRequests.filter((id) => !handled.has(id));
  const logged = new Set((base.requestLog ?? []).map((r) => r.id));
  const addedLog = (other.requestLog ?? []).filter((r) => !logged.has(r.id));
  if (addedIds.length === 0 && addedLog.length === 0) return base;
  const requestLog = [...addedLog, ...(base.requestLog ?? [])].slice(0, REQUEST_LOG_LIMIT);
  return { ...base, handledRequests: [...addedIds, ...base.handledRequests].slice(0, HANDLED_REQUESTS_LIMIT), ...(requestLog.length > 0 ? { requestLog } : {}) };
}
