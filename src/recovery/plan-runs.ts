/**
 * Runs of the framework's recovery plan (`recovery: { permanent: plan }`) are plan runs in the
 * checkpoint, not pod actions: the recovery rules see them here as actions on their pod, so that
 * `limits.maxActionsPerHour` and `limits.podInterval` count them, and a pod whose plan already ran for
 * its not-ready episode is not picked again (its request id names the episode, so it would not run
 * twice anyway, and picking it would hold back every other pod). Pure.
 */
import type { Checkpoint, PodActionEntry } from '../plans/checkpoint.js';
import { RECOVERY_ACTOR } from './rules.js';

/** The request id of a recovery plan run: one per pod and not-ready episode. */
export function recoveryRequestId(pod: string, notReadySince: string): string {
  return `recovery-${pod}-${Date.parse(notReadySince)}`;
}

/** A requested run's reason ends with its request id: `requested (recovery-zk-1-1764000000000)`. */
const ID_IN_REASON = /\(recovery-(.+)-(\d+)\)$/;

/** The recovery plan runs of the checkpoint as pod action entries, newest first. */
export function recoveryPlanEntries(cp: Checkpoint, plan: string): PodActionEntry[] {
  const out: PodActionEntry[] = [];
  for (const run of [cp.active, ...cp.history]) {
    if (run === undefined || run.plan !== plan) continue;
    const m = ID_IN_REASON.exec(run.reason);
    if (!m?.[1] || !m[2]) continue;
    const since = new Date(Number(m[2])).toISOString();
    const at = 'startedAt' in run.state ? run.state.startedAt : since;
    out.push({ pod: m[1], action: 'plan', at, runId: run.id, by: RECOVERY_ACTOR, notReadySince: since });
  }
  return out.sort((a, b) => b.at.localeCompare(a.at));
}

/** Pod actions and recovery plan runs together, newest first (what the recovery rules decide on). */
export function recoveryActions(cp: Checkpoint, plan: string): PodActionEntry[] {
  return [...recoveryPlanEntries(cp, plan), ...(cp.pods?.recent ?? [])].sort((a, b) => b.at.localeCompare(a.at));
}
