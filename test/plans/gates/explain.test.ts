import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/object.js';
import { explainWorkload, gateFor, podsOfWorkload, selectorMatches } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

const sts = obj(`
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: zk, namespace: app, generation: 1 }
spec: { replicas: 3, selector: { matchLabels: { app: zk } } }
status: { observedGeneration: 1, readyReplicas: 1, updatedReplicas: 3, currentRevision: r, updateRevision: r }
`);

function pod(name: string, status: string, labels = '{ app: zk }', namespace = 'app'): KubeObject {
  return obj(`{ apiVersion: v1, kind: Pod, metadata: { name: ${name}, namespace: ${namespace}, labels: ${labels}, creationTimestamp: "2026-01-01T11:59:30Z" }, status: ${status} }`);
}
const ready = '{ phase: Running, conditions: [{ type: Ready, status: "True" }] }';
const pullBackOff = '{ phase: Pending, containerStatuses: [{ name: zk, image: "nope:1", state: { waiting: { reason: ImagePullBackOff } } }] }';
const crashing = '{ phase: Running, containerStatuses: [{ name: zk, image: "zk:3", restartCount: 4, state: { waiting: { reason: CrashLoopBackOff } } }] }';

describe('explainWorkload: why a workload waits, through its pods', () => {
  it('GIVEN a pod that cannot pull its image within the grace THEN the message names the pod and image', () => {
    const pods = [pod('zk-0', ready), pod('zk-1', pullBackOff), pod('zk-2', crashing), pod('other', pullBackOff, '{ app: web }')];
    const explained = explainWorkload(sts, gateFor(sts, ctx()), pods, ctx());
    expect(explained.result).toEqual({ state: 'waiting', message: '1/3 replicas ready; pod zk-1: ImagePullBackOff (image nope:1) (+1 more)' });
    expect(explained.pods.map((p) => p.name)).toEqual(['zk-1', 'zk-2']);
  });

  it('GIVEN the pull failure outlasts the grace THEN the workload fails with the pod reason', () => {
    const pods = [pod('zk-1', pullBackOff)];
    const explained = explainWorkload(sts, gateFor(sts, ctx()), pods, ctx({ imagePullGraceSeconds: 10 }));
    expect(explained.result).toEqual({
      state: 'failed',
      reason: 'ImagePullBackOff',
      message: '1/3 replicas ready; pod zk-1: ImagePullBackOff (image nope:1) for 30s, past the 10s grace',
    });
  });

  it('GIVEN a workload that is done THEN pods are not consulted', () => {
    const doneSts = { ...sts, status: { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 3 } };
    expect(explainWorkload(doneSts, gateFor(doneSts, ctx()), [pod('zk-1', pullBackOff)], ctx())).toEqual({ result: { state: 'done', message: '3/3 replicas ready' }, pods: [] });
  });

  it('GIVEN no troubled pods THEN the workload verdict stands as is', () => {
    expect(explainWorkload(sts, gateFor(sts, ctx()), [pod('zk-0', ready)], ctx()).result).toEqual({ state: 'waiting', message: '1/3 replicas ready' });
  });

  it('GIVEN pods in another namespace with matching labels THEN they are not the workload\'s', () => {
    expect(podsOfWorkload(sts, [pod('zk-0', ready, '{ app: zk }', 'elsewhere')])).toEqual([]);
  });
});

describe('podsOfWorkload: the pods of a Job', () => {
  const jobPod = (name: string, meta: string): KubeObject => obj(`{ apiVersion: v1, kind: Pod, metadata: { name: ${name}, namespace: app, creationTimestamp: "2026-01-01T11:59:30Z", ${meta} }, status: ${pullBackOff} }`);
  const owned = (uid: string, name = 'migrate'): string => `ownerReferences: [{ apiVersion: batch/v1, kind: Job, name: ${name}, uid: ${uid}, controller: true }]`;
  const rendered = obj('{ apiVersion: batch/v1, kind: Job, metadata: { name: migrate, namespace: app }, spec: { template: { spec: { containers: [] } } } }');
  const live = obj('{ apiVersion: batch/v1, kind: Job, metadata: { name: migrate, namespace: app, uid: u2 }, spec: { template: { spec: { containers: [] } } } }');

  it('GIVEN a Job without a selector THEN its pods are found by their controller reference, else by the job-name labels', () => {
    const pods = [
      jobPod('by-owner', owned('u2')),
      jobPod('by-label', 'labels: { batch.kubernetes.io/job-name: migrate }'),
      jobPod('by-old-label', 'labels: { job-name: migrate }'),
      jobPod('other-job', 'labels: { job-name: seed }'),
    ];
    expect(podsOfWorkload(rendered, pods).map((p) => p.metadata.name)).toEqual(['by-owner', 'by-label', 'by-old-label']);
  });

  it('GIVEN a pod left by an earlier Job of the same name THEN it is not the current Job\'s', () => {
    const pods = [jobPod('earlier', `${owned('u1')}, labels: { job-name: migrate }`), jobPod('current', owned('u2'))];
    expect(podsOfWorkload(live, pods).map((p) => p.metadata.name)).toEqual(['current']);
  });

  it('GIVEN a Job with the selector the server generates THEN the selector decides', () => {
    const selected = { ...live, spec: { ...(live['spec'] as object), selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u2' } } } };
    const pods = [jobPod('mine', 'labels: { batch.kubernetes.io/controller-uid: u2 }'), jobPod('named-alike', 'labels: { job-name: migrate }')];
    expect(podsOfWorkload(selected, pods).map((p) => p.metadata.name)).toEqual(['mine']);
  });

  it('GIVEN a Job whose pod cannot pull its image past the grace THEN the Job fails naming the pod and image', () => {
    const job = { ...live, status: { active: 1 } };
    const explained = explainWorkload(job, gateFor(job, ctx()), [jobPod('migrate-x7', owned('u2'))], ctx({ imagePullGraceSeconds: 10 }));
    expect(explained.result).toEqual({ state: 'failed', reason: 'ImagePullBackOff', message: '0/1 completions (1 active); pod migrate-x7: ImagePullBackOff (image nope:1) for 30s, past the 10s grace' });
  });
});

describe('selectorMatches', () => {
  it.each([
    ['matchLabels all present', { matchLabels: { a: '1', b: '2' } }, { a: '1', b: '2', c: '3' }, true],
    ['matchLabels with a different value', { matchLabels: { a: '1' } }, { a: '2' }, false],
    ['In with a listed value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'cache'] }] }, { tier: 'db' }, true],
    ['In without the label', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, {}, false],
    ['NotIn with another value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, { tier: 'web' }, true],
    ['NotIn with a listed value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, { tier: 'db' }, false],
    ['Exists with the label', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { x: '' }, true],
    ['DoesNotExist with the label', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: 'y' }, false],
    ['an unknown operator', { matchExpressions: [{ key: 'x', operator: 'Near' }] }, { x: 'y' }, false],
    ['no selector at all', undefined, { a: '1' }, false],
  ])('%s -> %s', (_name, selector, labels, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });
});
