/** The controllers' pure decisions, checked at chosen instants without running anything. */
import { describe, expect, it } from 'vitest';
import { dueTimes } from '../../../src/cluster/controllers/cronjob.js';
import { findNewReplicaSet, nextStep, limitsOf, newReplicaSetFor } from '../../../src/cluster/controllers/deployment/plan.js';
import { judgeJob } from '../../../src/cluster/controllers/job.js';
import { podStage, type StageInput } from '../../../src/cluster/controllers/kubelet/stage.js';
import { planReplicaSet } from '../../../src/cluster/controllers/replicaset.js';
import { statefulSteps } from '../../../src/cluster/controllers/statefulset/plan.js';
import { failureOf } from '../../../src/cluster/controllers/sim.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { deployment } from './harness.js';

const timing = { startMs: 100, readyMs: 200, runMs: 300 };
const at = (now: number, extra: Partial<StageInput> = {}): string => {
  const { stage } = podStage({ scheduledAt: 0, now, timing, failure: undefined, runsToCompletion: false, ...extra });
  return stage.kind === 'crash-loop' ? `crash-loop x${stage.restarts}` : stage.kind;
};

describe('the kubelet timeline', () => {
  it.each<[string, number, Partial<StageInput>, string]>([
    ['a new pod is creating its containers', 50, {}, 'creating'],
    ['after the start delay it runs, not yet ready', 150, {}, 'running'],
    ['after the ready delay it is ready', 300, {}, 'ready'],
    ['an unpullable image backs off once the start delay passed', 150, { failure: 'image-pull' }, 'image-pull-backoff'],
    ['a pod asked to stay pending is never scheduled', 10_000, { failure: 'pending' }, 'unschedulable'],
    ['a never-ready pod runs forever unready', 100_000, { failure: 'never-ready' }, 'running'],
    ['a crash-looping container first runs briefly', 120, { failure: 'crash-loop' }, 'running'],
    ['then it has crashed once', 160, { failure: 'crash-loop' }, 'crash-loop x1'],
    ['back-offs double: 100, 200, 400 ms', 100 + 50 + 100 + 50 + 200 + 50 + 1, { failure: 'crash-loop' }, 'crash-loop x3'],
    ['a job pod runs for its run time', 350, { runsToCompletion: true }, 'running'],
    ['then succeeds', 400, { runsToCompletion: true }, 'succeeded'],
    ['or fails when asked to', 400, { runsToCompletion: true, failure: 'job-fail' }, 'failed'],
  ])('%s', (_name, now, extra, expected) => {
    expect(at(now, extra)).toBe(expected);
  });

  it('says when to look again', () => {
    expect(podStage({ scheduledAt: 0, now: 40, timing, failure: undefined, runsToCompletion: false }).nextInMs).toBe(60);
    expect(podStage({ scheduledAt: 0, now: 300, timing, failure: undefined, runsToCompletion: false }).nextInMs).toBeUndefined();
  });

  it.each<[string, Record<string, string>, string, string | undefined]>([
    ['an annotation', { 'sim.baton.dev/fail': 'crash-loop' }, 'nginx:1', 'crash-loop'],
    ['an image tagged does-not-exist', {}, 'nginx:does-not-exist', 'image-pull'],
    ['nothing', {}, 'nginx:1', undefined],
    ['an unknown annotation value', { 'sim.baton.dev/fail': 'explode' }, 'nginx:1', undefined],
  ])('reads the failure asked for from %s', (_name, annotations, image, expected) => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations }, spec: { containers: [{ name: 'c', image }] } };
    expect(failureOf(pod)).toBe(expected);
  });
});

const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true };
function rs(replicas: number, available: number, revision: number, image: string, created = `2026-01-01T00:00:0${revision}Z`): KubeObject {
  const d = deployment('web', replicas, image);
  const obj = newReplicaSetFor(d, replicas, revision, owner);
  obj.metadata.creationTimestamp = created;
  obj.status = { replicas, availableReplicas: available };
  return obj;
}

describe('the Deployment rollout step', () => {
  const strategy = (maxSurge: number | string, maxUnavailable: number | string) => ({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } });

  it.each<[string, number | string, number | string, { desired: number; maxSurge: number; maxUnavailable: number }]>([
    ['defaults of 25% round surge up and unavailability down', '25%', '25%', { desired: 10, maxSurge: 3, maxUnavailable: 2 }],
    ['both zero make one unavailable allowed', 0, 0, { desired: 10, maxSurge: 0, maxUnavailable: 1 }],
  ])('limits: %s', (_name, surge, unavailable, expected) => {
    expect(limitsOf(deployment('web', 10, 'nginx:1', strategy(surge, unavailable)))).toEqual(expected);
  });

  it.each<[string, KubeObject, KubeObject | undefined, KubeObject[], string]>([
    ['a first rollout creates the ReplicaSet at full size', deployment('web', 3, 'nginx:2'), undefined, [], 'create 3 rev 1'],
    ['a new template starts its ReplicaSet within maxSurge', deployment('web', 4, 'nginx:2', strategy(1, 0)), undefined, [rs(4, 4, 1, 'nginx:1')], 'create 1 rev 2'],
    ['the new ReplicaSet grows as far as surge allows', deployment('web', 4, 'nginx:2', strategy(2, 0)), rs(1, 1, 2, 'nginx:2'), [rs(4, 4, 1, 'nginx:1')], 'scale new to 2'],
    ['with no room to surge, old replicas go within maxUnavailable', deployment('web', 4, 'nginx:2', strategy(0, 1)), rs(0, 0, 2, 'nginx:2'), [rs(4, 4, 1, 'nginx:1')], 'scale old to 3'],
    ['unavailable new pods block scaling old ones down', deployment('web', 4, 'nginx:2', strategy(1, 0)), rs(1, 0, 2, 'nginx:2'), [rs(4, 4, 1, 'nginx:1')], 'none'],
    ['available new pods let old ones go', deployment('web', 4, 'nginx:2', strategy(1, 0)), rs(1, 1, 2, 'nginx:2'), [rs(4, 4, 1, 'nginx:1')], 'scale old to 3'],
    ['Recreate scales the old to zero first', deployment('web', 2, 'nginx:2', { strategy: { type: 'Recreate' } }), rs(0, 0, 2, 'nginx:2'), [rs(2, 2, 1, 'nginx:1')], 'scale old to 0'],
    ['a paused Deployment does not start a rollout', deployment('web', 2, 'nginx:2', { paused: true }), rs(0, 0, 2, 'nginx:2'), [rs(2, 2, 1, 'nginx:1')], 'none'],
    ['a paused Deployment still scales', deployment('web', 5, 'nginx:2', { paused: true }), rs(2, 2, 2, 'nginx:2'), [rs(0, 0, 1, 'nginx:1')], 'scale new to 5'],
    ['an old template again gets the next revision', deployment('web', 2, 'nginx:1'), rs(0, 0, 1, 'nginx:1'), [rs(2, 2, 2, 'nginx:2')], 'revision 3'],
  ])('%s', (_name, d, newRS, old, expected) => {
    const step = nextStep(d, newRS, old, owner);
    const text = (() => {
      switch (step.kind) {
        case 'create':
          return `create ${String((step.rs.spec as { replicas: number }).replicas)} rev ${step.rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? ''}`;
        case 'scale':
          return `scale ${step.rs === newRS ? 'new' : 'old'} to ${step.replicas}`;
        case 'set-revision':
          return `revision ${step.revision}`;
        case 'delete':
          return 'delete';
        case 'none':
          return 'none';
      }
    })();
    expect(text).toBe(expected);
  });
});

describe('the new ReplicaSet of a Deployment', () => {
  // Template keys are remembered per template object (issue #20): asked again, with the same and with
  // new objects, the answers stay those of the templates.
  it('is the oldest ReplicaSet whose template (without the hash label, nulls dropped) is the Deployment\'s, asked again and again', () => {
    const v1 = rs(2, 2, 1, 'nginx:1', '2026-01-01T00:00:01Z');
    const v1Later = rs(0, 0, 3, 'nginx:1', '2026-01-01T00:00:03Z');
    const v2 = rs(1, 1, 2, 'nginx:2');
    const owned = [v1Later, v2, v1];
    for (let i = 0; i < 3; i++) {
      expect(findNewReplicaSet(deployment('web', 2, 'nginx:1'), owned)).toBe(v1);
      expect(findNewReplicaSet(deployment('web', 2, 'nginx:2'), owned)).toBe(v2);
      expect(findNewReplicaSet(deployment('web', 2, 'nginx:3'), owned)).toBeUndefined();
    }
    const withNull = deployment('web', 2, 'nginx:2');
    (withNull.spec as { template: { metadata: Record<string, unknown> } }).template.metadata.creationTimestamp = null;
    expect(findNewReplicaSet(withNull, owned)).toBe(v2);
  });
});

describe('the ReplicaSet plan', () => {
  const pod = (name: string, ready: boolean, created: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, creationTimestamp: created },
    spec: { nodeName: 'n' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  const set = (replicas: number): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'r', generation: 4 }, spec: { replicas, template: { metadata: { labels: { a: 'b' } } } } });

  it('GIVEN too few pods THEN it creates the difference', () => {
    expect(planReplicaSet(set(3), [pod('a', true, '1')], 0)).toMatchObject({ create: 2, delete: [] });
  });

  it('GIVEN too many THEN it deletes the not-ready first, then the newest', () => {
    const plan = planReplicaSet(set(1), [pod('old', true, '1'), pod('new', true, '2'), pod('sick', false, '0')], 0);
    expect(plan.delete.map((p) => p.metadata.name)).toEqual(['sick', 'new']);
    expect(plan.status).toMatchObject({ replicas: 3, readyReplicas: 2, availableReplicas: 2, observedGeneration: 4 });
  });
});

describe('the StatefulSet steps', () => {
  const sts = (extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' }, spec: { replicas: 3, ...extra } });
  const pod = (i: number, ready: boolean, rev = 'r1'): [number, KubeObject] => [i, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `db-${i}`, labels: { 'controller-revision-hash': rev } }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }];
  const steps = (s: KubeObject, pods: [number, KubeObject][], update = 'r1'): string[] =>
    statefulSteps({ sts: s, pods: new Map(pods), currentRevision: 'r1', updateRevision: update }).map((st) => (st.kind === 'create' ? `create ${st.ordinal}` : `delete ${st.pod.metadata.name} (${st.why})`));

  it.each<[string, KubeObject, [number, KubeObject][], string, string[]]>([
    ['OrderedReady creates pod 0 first', sts(), [], 'r1', ['create 0']],
    ['OrderedReady waits for pod 0 to be ready', sts(), [pod(0, false)], 'r1', []],
    ['OrderedReady creates pod 1 once pod 0 is ready', sts(), [pod(0, true)], 'r1', ['create 1']],
    ['Parallel creates every missing pod', sts({ podManagementPolicy: 'Parallel' }), [pod(0, false)], 'r1', ['create 1', 'create 2']],
    ['scale down removes the highest ordinal first', sts({ replicas: 1 }), [pod(0, true), pod(1, true), pod(2, true)], 'r1', ['delete db-2 (condemned)']],
    ['a rolling update replaces the highest outdated pod', sts(), [pod(0, true), pod(1, true), pod(2, true)], 'r2', ['delete db-2 (update)']],
    ['a rolling update waits for every pod to be ready', sts(), [pod(0, true), pod(1, true, 'r2'), pod(2, false, 'r2')], 'r2', []],
    ['a partition keeps lower ordinals', sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }), [pod(0, true), pod(1, true), pod(2, true, 'r2')], 'r2', []],
    ['OnDelete never deletes for an update', sts({ updateStrategy: { type: 'OnDelete' } }), [pod(0, true), pod(1, true), pod(2, true)], 'r2', []],
  ])('%s', (_name, s, pods, update, expected) => {
    expect(steps(s, pods, update)).toEqual(expected);
  });
});

describe('the Job verdict', () => {
  const job = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec });
  const pod = (phase: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: phase }, status: { phase } });
  it.each<[string, Record<string, unknown>, string[], unknown]>([
    ['a new Job starts parallelism pods', { completions: 5, parallelism: 2 }, [], { kind: 'running', create: [-1, -1] }],
    ['never more than the completions left', { completions: 3, parallelism: 5 }, ['Succeeded', 'Succeeded'], { kind: 'running', create: [-1] }],
    ['enough successes complete it', { completions: 2 }, ['Succeeded', 'Succeeded'], { kind: 'complete' }],
    ['failures up to the limit are retried', { backoffLimit: 2 }, ['Failed', 'Failed'], { kind: 'running', create: [-1] }],
    ['one more fails it', { backoffLimit: 2 }, ['Failed', 'Failed', 'Failed'], { kind: 'failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }],
    ['a work queue is done when one succeeded and none runs', { parallelism: 2 }, ['Succeeded', 'Succeeded'], { kind: 'complete' }],
  ])('%s', (_name, spec, phases, expected) => {
    expect(judgeJob(job(spec), phases.map(pod), 0)).toEqual(expected);
  });
});

describe('the CronJob schedule', () => {
  const t = (iso: string): number => Date.parse(iso);
  it.each<[string, string, string, string, number | undefined, string | undefined, string]>([
    ['nothing due before the first time', '*/5 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:04:00Z', undefined, undefined, '2026-01-01T00:05:00.000Z'],
    ['a due time runs', '*/5 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:05:30Z', undefined, '2026-01-01T00:05:00.000Z', '2026-01-01T00:10:00.000Z'],
    ['only the latest of several missed times runs', '*/5 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:17:00Z', undefined, '2026-01-01T00:15:00.000Z', '2026-01-01T00:20:00.000Z'],
    ['a time missed by more than the starting deadline is skipped', '*/5 * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:17:00Z', 60, undefined, '2026-01-01T00:20:00.000Z'],
  ])('%s', (_name, schedule, last, now, deadline, runAt, next) => {
    const due = dueTimes(schedule, 'UTC', t(last), t(now), deadline);
    expect(due.runAt === undefined ? undefined : new Date(due.runAt).toISOString()).toBe(runAt);
    expect(new Date(due.next).toISOString()).toBe(next);
  });
});
