/**
 * What notifications report: one event per plan result of an instance, built from the agent's run
 * outcomes (`fromOutcome`). Drift repairs and recovery actions are runs of the pseudo-plans `repair`
 * and `recovery` (docs/drift.md, docs/recovery.md): a completed one is reported as `drift-repaired` or
 * `recovery-acted`, a failed one as `plan-failed` like any plan.
 */
import type { NotificationDecl } from '../render/schemas.js';

export type NotifyEventType = NotificationDecl['events'][number];

export interface NotifyEvent {
  type: NotifyEventType;
  instance: { namespace: string; name: string };
  /** The plan that ran (absent for refusals of content). */
  plan?: string;
  /** What happened, in one line (sensitive values are masked again before delivery). */
  message: string;
  /** The commit whose desired state the plan applied (commit statuses are set on it). */
  commit?: string;
  /** ISO time of the outcome. */
  at: string;
  /** The tenant the instance belongs to, when tenancy is configured. */
  tenant?: string;
}

/** The pseudo-plans drift repairs and recovery actions run as. */
const REPAIR_PLAN = 'repair';
/** Recovery's runs: the framework plan `recovery` and the pod actions (docs/recovery.md). */
const RECOVERY_PLANS: ReadonlySet<string> = new Set(['recovery', 'pod-restart', 'pod-replace', 'decommission']);

/** The agent's outcome of one instance's turn (a subset of sync/instance-run.ts RunOutcome). */
export type OutcomeLike =
  | { kind: 'complete'; plan: string }
  | { kind: 'failed'; plan: string; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'superseded' | 'nothing' | 'removed' | 'error' | 'waiting'; plan?: string; message?: string };

/** The event an outcome is reported as, or undefined for outcomes nobody is told about. */
export function fromOutcome(outcome: OutcomeLike, instance: NotifyEvent['instance'], commit: string | undefined, at: string): NotifyEvent | undefined {
  const base = { instance, at, ...(commit !== undefined ? { commit } : {}) };
  switch (outcome.kind) {
    case 'complete':
      if (outcome.plan === REPAIR_PLAN) return { ...base, type: 'drift-repaired', plan: outcome.plan, message: 'drifted objects repaired' };
      if (RECOVERY_PLANS.has(outcome.plan)) return { ...base, type: 'recovery-acted', plan: outcome.plan, message: outcome.plan === 'recovery' ? 'recovery acted' : `${outcome.plan} completed` };
      return { ...base, type: 'plan-completed', plan: outcome.plan, message: `${outcome.plan} completed` };
    case 'failed':
      return { ...base, type: 'plan-failed', plan: outcome.plan, message: `${outcome.plan} failed: ${outcome.message}` };
    case 'refused':
      return { ...base, type: 'refused', message: `refused: ${outcome.message}` };
    case 'superseded':
    case 'nothing':
    case 'removed':
    case 'error':
    case 'waiting':
      return undefined;
  }
}

export const EVENT_TITLES: Record<NotifyEventType, string> = {
  'plan-completed': 'plan completed',
  'plan-failed': 'plan failed',
  refused: 'change refused',
  'drift-repaired': 'drift repaired',
  'recovery-acted': 'recovery acted',
};

/** Whether the event is good news (commit status success) or bad (failure). */
export function isSuccess(type: NotifyEventType): boolean {
  return type === 'plan-completed' || type === 'drift-repaired' || type === 'recovery-acted';
}

export const instanceLabel = (e: NotifyEvent): string => `${e.instance.namespace}/${e.instance.name}`;
