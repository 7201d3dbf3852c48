import { describe, expect, it } from 'vitest';
import { gateFor, type GateResult } from '../../../src/plans/gates/index.js';
import { ctx, obj } from './_fixtures.js';

const deployment = (status: string, extra = ''): string => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: app, generation: 2 }
spec: { replicas: 3${extra} }
status: ${status}
`;

describe('Deployment gate: a rollout is done when observed, fully updated, without old replicas, and available', () => {
  it.each<[string, string, GateResult]>([
    ['the controller has not observed the new generation', deployment('{ observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }'),
      { state: 'waiting', message: 'waiting for the controller to observe generation 2 (observed 1)' }],
    ['a fresh deployment has no status yet', deployment('{}'), { state: 'waiting', message: 'waiting for the controller to observe the object' }],
    ['one of three replicas is updated', deployment('{ observedGeneration: 2, replicas: 4, updatedReplicas: 1, availableReplicas: 3 }'),
      { state: 'waiting', message: '1/3 replicas updated' }],
    ['old replicas are still terminating', deployment('{ observedGeneration: 2, replicas: 4, updatedReplicas: 3, availableReplicas: 3 }'),
      { state: 'waiting', message: '1 old replica pending termination (3/3 updated)' }],
    ['updated replicas are not available yet', deployment('{ observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 2 }'),
      { state: 'waiting', message: '2/3 replicas available' }],
    ['everything is updated and available', deployment('{ observedGeneration: 2, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }'),
      { state: 'done', message: '3/3 replicas available' }],
    ['the progress deadline was exceeded', deployment(`
  observedGeneration: 2
  replicas: 3
  updatedReplicas: 1
  conditions:
    - { type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: 'ReplicaSet "web-5d" has timed out progressing.' }`),
      { state: 'failed', reason: 'ProgressDeadlineExceeded', message: 'rollout exceeded its progress deadline (ProgressDeadlineExceeded: ReplicaSet "web-5d" has timed out progressing.)' }],
    ['a paused rollout', deployment('{ observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 3 }', ', paused: true'),
      { state: 'waiting', message: 'rollout is paused (spec.paused), 1/3 replicas updated' }],
    ['replicas default to one', deployment('{ observedGeneration: 2, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }').replace('replicas: 3', 'paused: false'),
      { state: 'done', message: '1/1 replicas available' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});

const statefulSet = (spec: string, status: string): string => `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: zk, namespace: app, generation: 3 }
spec: ${spec}
status: ${status}
`;

describe('StatefulSet gate: readiness, revisions, partitions and OnDelete', () => {
  it.each<[string, string, GateResult]>([
    ['the new generation is not observed', statefulSet('{ replicas: 3 }', '{ observedGeneration: 2, readyReplicas: 3 }'),
      { state: 'waiting', message: 'waiting for the controller to observe generation 3 (observed 2)' }],
    ['two of three replicas are ready', statefulSet('{ replicas: 3 }', '{ observedGeneration: 3, readyReplicas: 2, updatedReplicas: 2, currentRevision: zk-1, updateRevision: zk-1 }'),
      { state: 'waiting', message: '2/3 replicas ready' }],
    ['a rolling update is still replacing pods', statefulSet('{ replicas: 3 }', '{ observedGeneration: 3, readyReplicas: 3, updatedReplicas: 1, currentRevision: zk-1, updateRevision: zk-2 }'),
      { state: 'waiting', message: '1/3 replicas updated to revision zk-2' }],
    ['every replica runs the update revision', statefulSet('{ replicas: 3 }', '{ observedGeneration: 3, readyReplicas: 3, updatedReplicas: 3, currentRevision: zk-2, updateRevision: zk-2 }'),
      { state: 'done', message: '3/3 replicas ready' }],
    ['a partition of 2 leaves one replica to update, not yet done', statefulSet('{ replicas: 3, updateStrategy: { type: RollingUpdate, rollingUpdate: { partition: 2 } } }', '{ observedGeneration: 3, readyReplicas: 3, updatedReplicas: 0, currentRevision: zk-1, updateRevision: zk-2 }'),
      { state: 'waiting', message: '0/1 replicas above partition 2 updated' }],
    ['a partition of 2 with the replica above it updated', statefulSet('{ replicas: 3, updateStrategy: { type: RollingUpdate, rollingUpdate: { partition: 2 } } }', '{ observedGeneration: 3, readyReplicas: 3, updatedReplicas: 1, currentRevision: zk-1, updateRevision: zk-2 }'),
      { state: 'done', message: '3/3 replicas ready, 1 above partition 2 updated' }],
    ['OnDelete with every replica ready, even on old revisions', statefulSet('{ replicas: 3, updateStrategy: { type: OnDelete } }', '{ observedGeneration: 3, readyReplicas: 3, updatedReplicas: 0, currentRevision: zk-1, updateRevision: zk-2 }'),
      { state: 'done', message: '3/3 replicas ready (OnDelete strategy)' }],
    ['OnDelete with a replica not ready', statefulSet('{ replicas: 3, updateStrategy: { type: OnDelete } }', '{ observedGeneration: 3, readyReplicas: 2 }'),
      { state: 'waiting', message: '2/3 replicas ready (OnDelete strategy)' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});

const daemonSet = (strategy: string, status: string): string => `
apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent, namespace: app, generation: 1 }
spec: { updateStrategy: { type: ${strategy} } }
status: ${status}
`;

describe('DaemonSet gate: every node runs an updated, available pod', () => {
  it.each<[string, string, GateResult]>([
    ['updated pods are still being scheduled', daemonSet('RollingUpdate', '{ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberAvailable: 3 }'),
      { state: 'waiting', message: '2/3 updated pods scheduled' }],
    ['updated pods are not all available', daemonSet('RollingUpdate', '{ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 1 }'),
      { state: 'waiting', message: '1/3 pods available' }],
    ['every node runs an available updated pod', daemonSet('RollingUpdate', '{ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }'),
      { state: 'done', message: '3/3 pods available' }],
    ['OnDelete only needs availability', daemonSet('OnDelete', '{ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 0, numberAvailable: 3 }'),
      { state: 'done', message: '3/3 pods available' }],
  ])('GIVEN %s THEN the gate says so', (_name, yaml, expected) => {
    expect(gateFor(obj(yaml), ctx())).toEqual(expected);
  });
});

describe('ReplicaSet gate', () => {
  it.each<[string, string, GateResult]>([
    ['two of three ready', '{ observedGeneration: 1, readyReplicas: 2, availableReplicas: 2 }', { state: 'waiting', message: '2/3 replicas ready' }],
    ['ready but not yet available (minReadySeconds)', '{ observedGeneration: 1, readyReplicas: 3, availableReplicas: 1 }', { state: 'waiting', message: '1/3 replicas available' }],
    ['all available', '{ observedGeneration: 1, readyReplicas: 3, availableReplicas: 3 }', { state: 'done', message: '3/3 replicas available' }],
  ])('GIVEN %s THEN the gate says so', (_name, status, expected) => {
    const rs = obj(`{ apiVersion: apps/v1, kind: ReplicaSet, metadata: { name: web-1, namespace: app, generation: 1 }, spec: { replicas: 3 }, status: ${status} }`);
    expect(gateFor(rs, ctx())).toEqual(expected);
  });
});
