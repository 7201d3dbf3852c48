/** Recovery rules, pure: timeouts, episodes across restarts, limits, and what is never acted on. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/kube/object.js';
import { emptyCheckpoint, type Checkpoint, type PodActionEntry } from '../../src/plans/checkpoint.js';
import { decideRecovery, recoveryActions, recoveryPolicyOf, recoveryRequestId, type InstancePod, type NotReadyReason } from '../../src/recovery/index.js';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

function pod(name: string, notReadyAt?: number, reason: NotReadyReason = 'crash-loop', controller = 'StatefulSet'): InstancePod {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, uid: `${name}-uid` } };
  return {
    name, uid: `${name}-uid`, pod: obj, controller: { apiVersion: 'apps/v1', kind: controller, name: 'zk' }, claims: [`data-${name}`], ready: notReadyAt === undefined,
    ...(notReadyAt !== undefined ? { notReady: { since: at(notReadyAt), reason, message: reason } } : {}),
  };
}

const policy = recoveryPolicyOf({ transientTimeout: '2m', permanentTimeout: '10m', permanent: 'replace', limits: { podInterval: '1m', maxActionsPerHour: 3, maxPods: 1 } });

describe('recovery rules', () => {
  it('GIVEN a pod not ready shorter than the transient timeout THEN nothing happens', () => {
    expect(decideRecovery(policy, [pod('zk-0'), pod('zk-1', 0)], [], T0 + 119_000)).toEqual({ kind: 'none', held: [] });
  });

  it('GIVEN a pod not ready past the transient timeout THEN it is restarted, with a reason naming pod, duration and cause', () => {
    const d = decideRecovery(policy, [pod('zk-1', 0)], [], T0 + 125_000);
    expect(d).toMatchObject({ kind: 'act', action: 'restart', pods: [{ pod: 'zk-1', since: at(0), reason: 'crash-loop' }] });
    expect(d.kind === 'act' && d.reason).toBe('recovery: pod zk-1 not ready for 2m05s (crash-loop: crash-loop); restart after 2m00s');
  });

  it('GIVEN a restart that did not help (not ready again right after it) THEN the episode goes on and the pod is replaced at the permanent timeout, not restarted again', () => {
    const restart: PodActionEntry = { pod: 'zk-1', action: 'restart', at: at(125), runId: 'r1', by: 'recovery', notReadySince: at(0) };
    // The new pod went not ready 2s after the restart.
    expect(decideRecovery(policy, [pod('zk-1', 127)], [restart], T0 + 500_000)).toEqual({ kind: 'none', held: [] });
    expect(decideRecovery(policy, [pod('zk-1', 127)], [restart], T0 + 601_000)).toMatchObject({ kind: 'act', action: 'replace', pods: [{ pod: 'zk-1', since: at(0) }] });
  });

  it('GIVEN a pod that was fine for long after a restart THEN a new failure is a new episode (restart first)', () => {
    const restart: PodActionEntry = { pod: 'zk-1', action: 'restart', at: at(125), runId: 'r1', by: 'recovery', notReadySince: at(0) };
    expect(decideRecovery(policy, [pod('zk-1', 3600)], [restart], T0 + 3600_000 + 130_000)).toMatchObject({ kind: 'act', action: 'restart', pods: [{ since: at(3600) }] });
  });

  it('GIVEN two pods past the timeout and maxPods 1 THEN only the one broken longest is acted on; the other waits its turn', () => {
    const d = decideRecovery(policy, [pod('zk-0', 10), pod('zk-2', 0)], [], T0 + 200_000);
    expect(d).toMatchObject({ kind: 'act', action: 'restart', pods: [{ pod: 'zk-2' }], held: [{ pod: 'zk-0', why: 'waits its turn: limits.maxPods is 1' }] });
  });

  it('GIVEN a pod acted on within podInterval THEN it is held back, naming when the next action may come', () => {
    // A person restarted it at 570s; the permanent timeout (600s) passes 35s later: within podInterval (1m).
    const recent: PodActionEntry[] = [{ pod: 'zk-1', action: 'restart', at: at(570), runId: 'r', by: 'jane' }];
    expect(decideRecovery(policy, [pod('zk-1', 0)], recent, T0 + 605_000)).toEqual({ kind: 'none', held: [{ pod: 'zk-1', why: `acted on at ${at(570)} (restart); limits.podInterval allows the next action at ${at(630)}` }] });
    expect(decideRecovery(policy, [pod('zk-1', 0)], recent, T0 + 631_000)).toMatchObject({ kind: 'act', action: 'replace' });
  });

  it('GIVEN maxActionsPerHour reached THEN nothing is done', () => {
    const recent: PodActionEntry[] = [1, 2, 3].map((i) => ({ pod: `x-${i}`, action: 'restart', at: at(i), runId: `r${i}`, by: 'recovery' }));
    expect(decideRecovery(policy, [pod('zk-1', 0)], recent, T0 + 200_000)).toEqual({ kind: 'none', held: [{ pod: 'zk-1', why: 'limits.maxActionsPerHour (3) reached' }] });
  });

  it('GIVEN an image that cannot be pulled, or a pod without a controller, or a Job pod THEN recovery leaves them alone', () => {
    const d = decideRecovery(policy, [pod('zk-1', 0, 'image-pull'), { ...pod('loner', 0), controller: undefined } as unknown as InstancePod, pod('job-x', 0, 'not-ready', 'Job')], [], T0 + 900_000);
    expect(d).toEqual({ kind: 'none', held: [{ pod: 'zk-1', why: 'image-pull: a restart or new storage does not help' }, { pod: 'loner', why: 'no controller would create it again' }] });
  });

  it('GIVEN permanent: plan THEN the action is the plan, with the default plan name recovery', () => {
    const p = recoveryPolicyOf({ permanentTimeout: '1m', permanent: 'plan' });
    expect(p).toMatchObject({ plan: 'recovery', permanentMs: 60_000 });
    expect(p.transientMs).toBeUndefined();
    expect(decideRecovery(p, [pod('zk-1', 0, 'node-not-ready')], [], T0 + 61_000)).toMatchObject({ kind: 'act', action: 'plan', pods: [{ pod: 'zk-1' }] });
  });

  describe('permanent: plan', () => {
    const planPolicy = recoveryPolicyOf({ permanentTimeout: '10m', permanent: 'plan', limits: { podInterval: '1m', maxActionsPerHour: 1, maxPods: 1 } });
    const cpWith = (runs: Array<{ pod: string; since: number; started: number }>): Checkpoint => ({
      ...emptyCheckpoint({ namespace: 'zk', name: 'zk' }, 'zookeeper'),
      history: runs.map((r, i) => ({
        id: `run-${i}`, plan: 'recovery', reason: `requested (${recoveryRequestId(r.pod, at(r.since))})`, args: { POD: r.pod }, frameworkVersion: '1.0.0', strategy: 'serial',
        state: { status: 'COMPLETE', startedAt: at(r.started), finishedAt: at(r.started + 1), message: 'plan complete' }, phases: [],
      })),
    });

    it('GIVEN a recovery plan run within the hour THEN it counts against maxActionsPerHour: another broken pod is held', () => {
      const recent = recoveryActions(cpWith([{ pod: 'zk-1', since: 0, started: 600 }]), 'recovery');
      expect(recent).toEqual([{ pod: 'zk-1', action: 'plan', at: at(600), runId: 'run-0', by: 'recovery', notReadySince: at(0) }]);
      const d = decideRecovery(planPolicy, [pod('zk-2', 100)], recent, T0 + 1200_000);
      expect(d).toEqual({ kind: 'none', held: [{ pod: 'zk-2', why: 'limits.maxActionsPerHour (1) reached' }] });
      // An hour later the limit no longer holds it.
      expect(decideRecovery(planPolicy, [pod('zk-2', 100)], recent, T0 + 4300_000)).toMatchObject({ kind: 'act', action: 'plan', pods: [{ pod: 'zk-2' }] });
    });

    it('GIVEN the recovery plan ran for a pod still not ready in the same episode THEN it is held (not picked again ahead of other pods)', () => {
      const loose = recoveryPolicyOf({ permanentTimeout: '10m', permanent: 'plan', limits: { podInterval: '1m', maxActionsPerHour: 10, maxPods: 1 } });
      const recent = recoveryActions(cpWith([{ pod: 'zk-1', since: 0, started: 600 }]), 'recovery');
      const d = decideRecovery(loose, [pod('zk-1', 0), pod('zk-2', 500)], recent, T0 + 1200_000);
      expect(d).toMatchObject({ kind: 'act', action: 'plan', pods: [{ pod: 'zk-2' }] });
      expect(d.held).toEqual([{ pod: 'zk-1', why: `the recovery plan ran for it at ${at(600)} (run run-0); it is not run again until the pod was ready again` }]);
    });
  });
});
