/**
 * Runs of the framework's recovery plan (`recovery: { permanent: plan }`) are plan runs in the
 * checkpoint, not pod actions: the recovery rules see them here as actions on their pod, so that
 * `limits.maxActionsPerHour` and `limits.podInterval` count them, and a pod whose plan already ran for
 * its not-ready episode is not picked again (its request id names the episode, so it would not run
 * twice anyway, and picking it would hold back every other pod).
 *
 * The checkpoint's run history keeps only the newest HISTORY_LIMIT (20) runs of the instance, so a
 * busy instance would forget recovery runs of the last hour. After each recovery plan run the agent
 * copies them into the pod action ledger (`pods.recent`, which keeps every entry of the last hour):
 * the rules count both, once per run id.
 */
import { CheckpointConflictError, keepRecentPodActions, type Checkpoint, type CheckpointStore, type InstanceKey, type PodActionEntry } from '../plans/checkpoint.js';
import { RECOVERY_ACTOR } from './rules.js';

/** The request id of a recovery plan run: one per pod and not-ready episode. */
export function recoveryRequestId(pod: string, notReadySince: string): string {
  return `recovery-${pod}-${Date.parse(notReadySince)}`;
}

/** A requested run's reason ends with its request id: `requested (recovery-zk-1-1764000000000)`. */
const ID_IN_REASON = /\(recovery-(.+)-(\d+)\)$/;

/** The recovery plan runs of the checkpoint's active run and history as pod action entries, newest first. */
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

/** Pod actions and recovery plan runs together, once per run, newest first (what the recovery rules decide on). */
export function recoveryActions(cp: Checkpoint, plan: string): PodActionEntry[] {
  const ledger = cp.pods?.recent ?? [];
  const inLedger = new Set(ledger.map((e) => e.runId));
  return [...recoveryPlanEntries(cp, plan).filter((e) => !inLedger.has(e.runId)), ...ledger].sort((a, b) => b.at.localeCompare(a.at));
}

/** `cp` with its recovery plan runs copied into `pods.recent`; undefined when the ledger has them all. */
export function withRecoveryPlanLedger(cp: Checkpoint, plan: string): Checkpoint | undefined {
  const ledger = cp.pods?.recent ?? [];
  const inLedger = new Set(ledger.map((e) => e.runId));
  const added = recoveryPlanEntries(cp, plan).filter((e) => !inLedger.has(e.runId));
  if (added.length === 0) return undefined;
  return { ...cp, pods: { ...(cp.pods ?? {}), recent: keepRecentPodActions([...added, ...ledger]) } };
}

/**
 * Copies the instance's recovery plan runs into its ledger. Called by the instance's worker after a
 * recovery plan run (nothing else writes the checkpoint then); a conflicting write is read again.
 */
export async function recordRecoveryPlanRuns(store: CheckpointStore, instance: InstanceKey, plan: string): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await store.load(instance);
    const next = stored === undefined ? undefined : withRecoveryPlanLedger(stored.checkpoint, plan);
    if (stored === undefined || next === undefined) return;
    try {
      await store.save(next, stored.version);
      return;
    } catch (err) {
      if (!(err instanceof CheckpointConflictError)) throw err;
    }
  }
}
