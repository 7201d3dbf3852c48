import { describe, expect, it } from 'vitest';
import { gateFor, type GateResult } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

const job = (spec: string, status: string): string => `
apiVersion: batch/v1
kind: Job
metadata: { name: backup, namespace: app }
spec: ${spec}
status: ${status}
`;

describe('Job gate: Complete is done, Failed is terminal', () => {
  it.each<[string, string, GateResult]>([
    ['a job that has not started', job('{ completions: 1 }', '{}'), { state: 'waiting', message: '0/1 completions' }],
    ['a job with an active pod and an earlier failure', job('{ completions: 3 }', '{ active: 1, succeeded: 1, failed: 1 }'),
      { state: 'waiting', message: '1/3 completions (1 active, 1 failed)' }],
    ['a complete job', job('{ completions: 1 }', '{ succeeded: 1, conditions: [{ type: Complete, status: "True" }] }'),
      { state: 'done', message: 'complete (1 succeeded)' }],
    ['a job past its backoff limit', job('{ backoffLimit: 2 }', '{ failed: 3, conditions: [{ type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit }] }'),
      { state: 'failed', reason: 'JobFailed', message: 'job failed (BackoffLimitExceeded: Job has reached the specified backoff limit)' }],
    ['a suspended job', job('{ suspend: true }', '{}'), { state: 'waiting', message: 'job is suspended' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});

const pod = (status: string, created = '2026-01-01T11:59:00Z'): string => `
apiVersion: v1
kind: Pod
metadata: { name: zk-1, namespace: app, creationTimestamp: "${created}" }
spec: { containers: [{ name: zk, image: "nope:1" }] }
status: ${status}
`;
const waitingOn = (reason: string, extra = ''): string =>
  `{ phase: Pending, containerStatuses: [{ name: zk, image: "nope:1", ready: false, restartCount: 0, state: { waiting: { reason: ${reason}${extra} } } }] }`;

describe('Pod gate: Ready is done, Failed is terminal, image pulls fail after a grace period', () => {
  it.each<[string, string, GateResult]>([
    ['a ready pod', pod('{ phase: Running, conditions: [{ type: Ready, status: "True" }] }'), { state: 'done', message: 'pod ready' }],
    ['a pod that ran to completion', pod('{ phase: Succeeded }'), { state: 'done', message: 'pod succeeded' }],
    ['a failed pod', pod('{ phase: Failed, reason: Evicted, message: "The node was low on memory." }'),
      { state: 'failed', reason: 'PodFailed', message: 'pod failed (Evicted: The node was low on memory.)' }],
    ['an unscheduled pod', pod('{ phase: Pending, conditions: [{ type: PodScheduled, status: "False", reason: Unschedulable, message: "0/3 nodes are available" }] }'),
      { state: 'waiting', message: 'pod not scheduled (Unschedulable: 0/3 nodes are available)' }],
    ['a running pod whose readiness probe fails', pod('{ phase: Running, conditions: [{ type: PodScheduled, status: "True" }, { type: Ready, status: "False", reason: ContainersNotReady }] }'),
      { state: 'waiting', message: 'pod Running, not ready (ContainersNotReady)' }],
    ['an image pull failing within the grace period', pod(waitingOn('ImagePullBackOff')),
      { state: 'waiting', message: 'ImagePullBackOff (image nope:1)' }],
    ['an image pull failing past the grace period', pod(waitingOn('ErrImagePull'), '2026-01-01T11:50:00Z'),
      { state: 'failed', reason: 'ErrImagePull', message: 'ErrImagePull (image nope:1) for 600s, past the 120s grace' }],
    ['an invalid image name, hopeless at once', pod(waitingOn('InvalidImageName')),
      { state: 'failed', reason: 'InvalidImageName', message: 'InvalidImageName (image nope:1)' }],
    ['a crash loop, which may recover', pod('{ phase: Running, containerStatuses: [{ name: zk, image: "zk:3", restartCount: 5, state: { waiting: { reason: CrashLoopBackOff } } }] }'),
      { state: 'waiting', message: 'CrashLoopBackOff (container zk, restarts 5)' }],
    ['a missing config map', pod(waitingOn('CreateContainerConfigError', ', message: configmap "conf" not found')),
      { state: 'waiting', message: 'CreateContainerConfigError (container zk: configmap "conf" not found)' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });

  it('GIVEN an init container that cannot pull THEN the pod waits on it', () => {
    const p = obj(pod('{ phase: Pending, initContainerStatuses: [{ name: init, image: "busybox:nope", state: { waiting: { reason: ErrImagePull } } }] }'));
    expect(gateFor(p, ctx())).toEqual({ state: 'waiting', message: 'ErrImagePull (image busybox:nope)' });
  });
});
