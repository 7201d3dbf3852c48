/**
 * Requests that arrive together (one commit, or several the agent sees at one look) must not
 * contradict each other: at most one plan action per plan, except force-completes of different steps,
 * which may come together. Every request of a conflicting group is refused (none is guessed at);
 * the others go ahead. Pure.
 */
import type { Checkpoint } from '../plans/checkpoint.js';
import { PLAN_ACTIONS } from './handlers.js';
import type { ControlRequest } from './types.js';

export interface Conflict {
  ids: Set<string>;
  message: string;
}

export function conflictsOf(requests: readonly ControlRequest[], cp: Checkpoint | undefined): Conflict[] {
  const groups = new Map<string, ControlRequest[]>();
  for (const r of requests) {
    if (!PLAN_ACTIONS.has(r.action)) continue;
    // A request without --plan acts on the running plan (or the last one).
    const plan = r.plan ?? cp?.active?.plan ?? '(no plan)';
    groups.set(plan, [...(groups.get(plan) ?? []), r]);
  }
  const out: Conflict[] = [];
  for (const [plan, group] of groups) {
    if (group.length < 2) continue;
    const steps = group.map((r) => `${r.phase ?? ''}/${r.step ?? ''}`);
    const allForce = group.every((r) => r.action === 'force-complete') && new Set(steps).size === steps.length;
    if (allForce) continue;
    const listed = group.map((r) => `${r.id} (${r.action}${r.step ? ` ${r.phase}/${r.step}` : ''})`).join(', ');
    out.push({ ids: new Set(group.map((r) => r.id)), message: `requests ${listed} for plan ${plan} arrived together and conflict: none of them is carried out; send one at a time` });
  }
  return out;
}
