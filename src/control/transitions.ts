/**
 * The control transitions still to record in Git, derived like the plan transitions (sync/transitions.ts)
 * by comparing the record (the last status written) with the checkpoint: each carried-out or refused
 * request of the checkpoint's `requestLog` whose id the record's `requests` does not list, and a canary
 * wait the record does not show yet. So each appears in Git exactly once, also across restarts. Pure.
 */
import type { Checkpoint, RequestRecord } from '../plans/checkpoint.js';
import type { CanaryWait, PlanRun } from '../plans/state.js';

export type ControlTransition =
  | { kind: 'request'; record: RequestRecord }
  | { kind: 'waiting'; run: PlanRun; waits: CanaryWait[] };

export interface ControlRecord {
  currentPlan?: PlanRun;
  requests?: ReadonlyArray<{ id: string }>;
}

export function unrecordedControl(record: ControlRecord | undefined, cp: Checkpoint | undefined): ControlTransition[] {
  if (cp === undefined) return [];
  const known = new Set((record?.requests ?? []).map((r) => r.id));
  const out: ControlTransition[] = [...(cp.requestLog ?? [])].reverse().filter((r) => !known.has(r.id)).map((r) => ({ kind: 'request', record: r }));
  const active = cp.active;
  if (active?.state.status === 'WAITING') {
    const shown = record?.currentPlan;
    const same = shown?.id === active.id && shown.state.status === 'WAITING' && shown.state.since === active.state.since;
    if (!same) out.push({ kind: 'waiting', run: active, waits: active.state.waits });
  }
  return out;
}
