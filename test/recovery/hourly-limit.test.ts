/**
 * `limits.maxActionsPerHour` counts every recovery action of the last hour, however many other plans
 * ran meanwhile (issue #13 audit): the checkpoint's run history keeps 20 runs, so recovery plan runs
 * are copied into the pod action ledger after each run (as the agent's worker does), and the ledger
 * keeps the whole last hour. A fake clock drives an hour of recovery plan runs with a scheduled plan
 * run after each, so that the run history alone holds fewer than the limit.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import { archiveActive, emptyCheckpoint, keepRecentPodActions, MemoryCheckpointStore, POD_ACTIONS_LIMIT, type Checkpoint, type PodActionEntry } from '../../src/plans/checkpoint.js';
import type { PlanRun } from '../../src/plans/state.js';
import { decideRecovery, recordRecoveryPlanRuns, recoveryActions, recoveryPlanEntries, recoveryPolicyOf, recoveryRequestId, type InstancePod } from '../../src/recovery/index.js';

const key = { namespace: 'zk', name: 'zk' };
const T0 = Date.parse('2026-11-24T01:00:00.000Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
// 22 actions an hour: more than the 20 runs the history keeps.
const policy = recoveryPolicyOf({ permanentTimeout: '1m', permanent: 'plan', plan: 'recovery', limits: { podInterval: '1m', maxActionsPerHour: 22, maxPods: 1 } });

function run(id: string, plan: string, reason: string, minute: number): PlanRun {
  return {
    id, plan, reason, args: {}, frameworkVersion: '1.0.0', strategy: 'serial', phases: [],
    state: { status: 'COMPLETE', startedAt: at(minute), finishedAt: at(minute), message: 'done' },
  };
}

function brokenPod(name: string, sinceMinute: number): InstancePod {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, uid: `${name}-uid` } };
  return { name, uid: `${name}-uid`, pod: obj, controller: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'zk' }, claims: [], ready: false, notReady: { since: at(sinceMinute), reason: 'crash-loop', message: 'crash-loop' } };
}

/** Runs `plan` as the engine records it: the new run active, the last one archived into the bounded history. */
async function record(store: MemoryCheckpointStore, r: PlanRun): Promise<void> {
  const stored = await store.load(key);
  const cp: Checkpoint = stored?.checkpoint ?? emptyCheckpoint(key, 'zk');
  await store.save({ ...archiveActive(cp), active: r }, stored?.version);
}

describe('the hourly recovery limit', () => {
  it('GIVEN 22 recovery plan runs within an hour, each followed by a scheduled run (the history keeps 20) WHEN another pod breaks THEN the limit holds it; an hour later it is acted on', async () => {
    const store = new MemoryCheckpointStore();
    for (let i = 0; i < 22; i++) {
      const minute = i * 2;
      const pod = `zk-${i}`;
      await record(store, run(`rec-${i}`, 'recovery', `requested (${recoveryRequestId(pod, at(minute - 1))})`, minute));
      // What the agent's worker does after each recovery plan run.
      await recordRecoveryPlanRuns(store, key, 'recovery');
      await record(store, run(`backup-${i}`, 'backup', `schedule backup due ${at(minute + 1)}`, minute + 1));
    }
    const cp = (await store.load(key))?.checkpoint;
    if (cp === undefined) throw new Error('no checkpoint');
    // The run history alone has forgotten most of them.
    expect(cp.history.length).toBe(20);
    expect(recoveryPlanEntries(cp, 'recovery').length).toBeLessThan(22);
    // The ledger has every one, once.
    const actions = recoveryActions(cp, 'recovery');
    expect(actions.filter((e) => e.action === 'plan').map((e) => e.runId).sort()).toEqual(Array.from({ length: 22 }, (_, i) => `rec-${i}`).sort());

    const now = T0 + 50 * 60_000;
    const held = decideRecovery(policy, [brokenPod('zk-99', 45)], actions, now);
    expect(held).toEqual({ kind: 'none', held: [{ pod: 'zk-99', why: 'limits.maxActionsPerHour (22) reached' }] });

    // Past the hour of the first runs: some of them no longer count, the pod is acted on.
    const later = T0 + 70 * 60_000;
    expect(decideRecovery(policy, [brokenPod('zk-99', 45)], actions, later)).toMatchObject({ kind: 'act', action: 'plan', pods: [{ pod: 'zk-99' }] });
  });

  it('GIVEN the ledger already has the runs WHEN it is recorded again THEN nothing is added (once per run id)', async () => {
    const store = new MemoryCheckpointStore();
    await record(store, run('rec-a', 'recovery', `requested (${recoveryRequestId('zk-1', at(0))})`, 1));
    await recordRecoveryPlanRuns(store, key, 'recovery');
    const first = await store.load(key);
    await recordRecoveryPlanRuns(store, key, 'recovery');
    const second = await store.load(key);
    expect(second?.version).toBe(first?.version);
    expect(recoveryActions(second?.checkpoint ?? emptyCheckpoint(key, 'zk'), 'recovery')).toHaveLength(1);
  });

  it('GIVEN more pod actions within one hour than the ledger limit THEN every one of the hour is kept; older ones beyond the limit go', () => {
    const entry = (i: number, minute: number): PodActionEntry => ({ pod: `p-${i}`, action: 'restart', at: at(minute), runId: `r-${i}`, by: 'recovery' });
    const withinHour = Array.from({ length: POD_ACTIONS_LIMIT + 10 }, (_, i) => entry(i, 100 + i * 0.5));
    const old = Array.from({ length: 5 }, (_, i) => entry(1000 + i, i));
    const kept = keepRecentPodActions([...old, ...withinHour]);
    expect(kept).toHaveLength(POD_ACTIONS_LIMIT + 10);
    expect(kept.some((e) => e.runId.startsWith('r-100'))).toBe(false);
    // Newest first.
    expect(kept[0]?.runId).toBe(`r-${POD_ACTIONS_LIMIT + 9}`);
  });
});
