import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/object.js';
import { eventually, hasCondition, loose, phaseOf, startHarness, st, type Harness, type Loose } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ podStartDelayMs: 10, readyDelayMs: 20 }, 3);
});
afterEach(async () => {
  await h.stop();
});

const get = (kind: string, name: string): KubeObject | undefined => h.kube.all(kind).find((o) => o.metadata.name === name);
const ready = (p: KubeObject): boolean => hasCondition(p, 'Ready');

function statefulSet(name: string, replicas: number, extra: Record<string, unknown> = {}, image = 'redis:7'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...extra,
    },
  };
}

describe('StatefulSet', () => {
  it('GIVEN OrderedReady with 3 replicas THEN pod N+1 is created only after pod N is Ready, each with a bound claim', async () => {
    const violations: string[] = [];
    const sample = setInterval(() => {
      for (const i of [1, 2]) {
        const pod = get('Pod', `db-${i}`);
        const previous = get('Pod', `db-${i - 1}`);
        if (pod && (!previous || !ready(previous))) violations.push(`db-${i} before db-${i - 1} was ready`);
      }
    }, 1);
    await h.kube.create(statefulSet('db', 3));
    const sts = await eventually(() => {
      const s = get('StatefulSet', 'db');
      return st(s).readyReplicas === 3 && s;
    }, 5000, 'sts ready');
    clearInterval(sample);
    expect(violations).toEqual([]);
    expect(st(sts)).toMatchObject({ replicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1 });
    expect(st(sts).currentRevision).toBe(st(sts).updateRevision);
    expect(h.kube.all('PersistentVolumeClaim').map((c) => [c.metadata.name, phaseOf(c)]).sort()).toEqual([
      ['data-db-0', 'Bound'],
      ['data-db-1', 'Bound'],
      ['data-db-2', 'Bound'],
    ]);
    expect(loose(get('Pod', 'db-0')).spec.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }]);
    expect(h.kube.all('ControllerRevision')).toHaveLength(1);
  });

  it('GIVEN Parallel pod management THEN all pods are created at once', async () => {
    // Pods that never become ready: with OrderedReady only db-0 would ever exist, so three pods prove
    // that none waited for another's readiness. (A one-second ready delay and a 900 ms deadline timed
    // the controller instead, and a loaded machine could miss it.)
    const sts = statefulSet('db', 3, { podManagementPolicy: 'Parallel' });
    sts.metadata.annotations = { 'sim.baton.dev/fail': 'never-ready' };
    await h.kube.create(sts);
    await eventually(() => h.kube.all('Pod').length === 3, 60_000, 'three pods, none ready');
    expect(h.kube.all('Pod').filter(ready)).toEqual([]);
  });

  async function rollTo(image: string): Promise<void> {
    await h.kube.patch({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'default', name: 'db' }, { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } }, 'merge');
  }
  const images = (): string[] => ['db-0', 'db-1', 'db-2'].map((n) => String(loose(get('Pod', n))?.spec.containers[0].image));

  it('GIVEN a template change THEN pods are replaced from the highest ordinal and the revisions converge', async () => {
    await h.kube.create(statefulSet('db', 3));
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'ready');
    const first = st(get('StatefulSet', 'db')).currentRevision;
    await rollTo('redis:8');
    const sts = await eventually(() => {
      const s = get('StatefulSet', 'db');
      return st(s).currentRevision !== first && st(s).currentRevision === st(s).updateRevision && st(s).readyReplicas === 3 && s;
    }, 5000, 'rolled');
    expect(images()).toEqual(['redis:8', 'redis:8', 'redis:8']);
    expect(st(sts).updatedReplicas).toBe(3);
    expect(h.kube.all('ControllerRevision').map((r: Loose) => Number(r.revision)).sort()).toEqual([1, 2]);
  });

  it('GIVEN a partition of 2 THEN only ordinals from 2 up are updated', async () => {
    await h.kube.create(statefulSet('db', 3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }));
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'ready');
    await rollTo('redis:8');
    await eventually(() => st(get('StatefulSet', 'db')).updatedReplicas === 1 && st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'partitioned');
    // The controllers have nothing left to do: the ordinals below the partition stay as they are.
    await h.manager.settled();
    expect(images()).toEqual(['redis:7', 'redis:7', 'redis:8']);
  });

  it('GIVEN OnDelete THEN nothing is replaced until a pod is deleted, which comes back updated', async () => {
    await h.kube.create(statefulSet('db', 3, { updateStrategy: { type: 'OnDelete' } }));
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'ready');
    await rollTo('redis:8');
    // The new revision is recorded and the controllers have nothing left to do: still no pod replaced.
    await eventually(() => st(get('StatefulSet', 'db')).updateRevision !== st(get('StatefulSet', 'db')).currentRevision, 5000, 'new revision');
    await h.manager.settled();
    expect(images()).toEqual(['redis:7', 'redis:7', 'redis:7']);
    await h.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'db-1' });
    await eventually(() => images()[1] === 'redis:8' && st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'db-1 recreated');
    expect(images()).toEqual(['redis:7', 'redis:8', 'redis:7']);
  });

  it('GIVEN a scale down THEN the highest ordinals go and the claims stay', async () => {
    await h.kube.create(statefulSet('db', 3));
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 3, 5000, 'ready');
    await h.kube.patch({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'default', name: 'db' }, { spec: { replicas: 1 } }, 'merge');
    await eventually(() => h.kube.all('Pod').length === 1 && st(get('StatefulSet', 'db')).replicas === 1, 5000, 'scaled down');
    expect(get('Pod', 'db-0')).toBeDefined();
    expect(h.kube.all('PersistentVolumeClaim')).toHaveLength(3);
  });
});

describe('DaemonSet', () => {
  const ds = (image: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'main', image }] } } },
  });

  it('GIVEN 3 nodes THEN one pod runs on each, and an update replaces them all', async () => {
    await h.kube.create(ds('agent:1'));
    await eventually(() => st(get('DaemonSet', 'agent')).numberAvailable === 3, 5000, 'available');
    expect(h.kube.all('Node').map((n) => n.metadata.name).sort()).toEqual(['sim-node-0', 'sim-node-1', 'sim-node-2']);
    expect(h.kube.all('Pod').map((p: Loose) => String(p.spec.nodeName)).sort()).toEqual(['sim-node-0', 'sim-node-1', 'sim-node-2']);
    await h.kube.patch({ apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'default', name: 'agent' }, { spec: { template: { spec: { containers: [{ name: 'main', image: 'agent:2' }] } } } }, 'merge');
    await eventually(() => {
      const s = st(get('DaemonSet', 'agent'));
      return s.observedGeneration === 2 && s.updatedNumberScheduled === 3 && s.numberAvailable === 3 && h.kube.all('Pod').every((p: Loose) => p.spec.containers[0].image === 'agent:2');
    }, 5000, 'updated');
    expect(st(get('DaemonSet', 'agent'))).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberMisscheduled: 0, numberReady: 3 });
  });
});

describe('Job and CronJob', () => {
  const job = (name: string, extra: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default', annotations },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...extra },
  });

  it('GIVEN completions 3 and parallelism 2 THEN three pods succeed, never more than two at once, and the Job is Complete', async () => {
    let maxActive = 0;
    const sample = setInterval(() => {
      maxActive = Math.max(maxActive, h.kube.all('Pod').filter((p) => !['Succeeded', 'Failed'].includes(String(st(p).phase))).length);
    }, 1);
    await h.kube.create(job('batch', { completions: 3, parallelism: 2 }));
    const j = await eventually(() => {
      const obj = get('Job', 'batch');
      return hasCondition(obj, 'Complete') && obj;
    }, 5000, 'complete');
    clearInterval(sample);
    expect(maxActive).toBeLessThanOrEqual(2);
    expect(st(j)).toMatchObject({ succeeded: 3, ready: 0 });
    expect(st(j).completionTime).toEqual(expect.any(String));
    expect(h.kube.all('Pod').map((p) => phaseOf(p))).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
  });

  it('GIVEN a failing Job with backoffLimit 1 THEN two pods fail and the Job is Failed with BackoffLimitExceeded', async () => {
    await h.kube.create(job('bad', { backoffLimit: 1 }, { 'sim.baton.dev/fail': 'job-fail' }));
    const j = await eventually(() => {
      const obj = get('Job', 'bad');
      return hasCondition(obj, 'Failed') && obj;
    }, 5000, 'failed');
    expect(st(j).failed).toBe(2);
    expect(st(j).conditions.find((c: Loose) => c.type === 'Failed').reason).toBe('BackoffLimitExceeded');
    const pod: Loose = h.kube.all('Pod')[0];
    expect(pod.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
  });

  it('GIVEN an Indexed Job of 3 THEN each index completes once', async () => {
    await h.kube.create(job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    const j = await eventually(() => st(get('Job', 'idx')).completedIndexes === '0,1,2' && get('Job', 'idx'), 5000, 'indexes');
    expect(st(j).succeeded).toBe(3);
  });

  it('GIVEN a CronJob every second THEN it creates Jobs on schedule that run to completion', async () => {
    await h.kube.create({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick', namespace: 'default' },
      spec: { schedule: '* * * * * *', successfulJobsHistoryLimit: 1, jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } } } } },
    });
    const cj = await eventually(() => {
      const obj = get('CronJob', 'tick');
      return Boolean(st(obj).lastSuccessfulTime) && obj;
    }, 5000, 'a successful run');
    expect(st(cj).lastScheduleTime).toEqual(expect.any(String));
    const jobs = h.kube.all('Job');
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    expect(jobs[0]!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'CronJob', name: 'tick', controller: true });
  });
});

describe('claims and services', () => {
  it.each([
    ['annotated to stay pending', { 'sim.baton.dev/fail': 'pending' }, undefined, 'simulated failure'],
    ['of a missing storage class', {}, 'gold', 'storageclass.storage.k8s.io "gold" not found'],
  ])('GIVEN a claim %s THEN it stays Pending with a ProvisioningFailed event', async (_name, annotations, storageClassName, message) => {
    await h.kube.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'default', annotations },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(storageClassName ? { storageClassName } : {}) },
    });
    const event = await eventually(() => h.kube.all('Event').find((e: Loose) => e.reason === 'ProvisioningFailed'), 2000, 'event');
    expect(loose(event).message).toContain(message);
    expect(st(get('PersistentVolumeClaim', 'data')).phase).toBe('Pending');
    expect(h.kube.all('PersistentVolume')).toEqual([]);
  });

  it('GIVEN a claim of the default class THEN a volume is provisioned and both are Bound; deleting the claim deletes the volume', async () => {
    await h.kube.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } });
    const pvc = await eventually(() => st(get('PersistentVolumeClaim', 'data')).phase === 'Bound' && get('PersistentVolumeClaim', 'data'), 2000, 'bound');
    expect(loose(pvc).spec).toMatchObject({ storageClassName: 'standard', volumeName: `pvc-${pvc.metadata.uid}` });
    expect(st(pvc).capacity).toEqual({ storage: '2Gi' });
    expect(h.kube.all('PersistentVolume').map((v) => phaseOf(v))).toEqual(['Bound']);
    await h.kube.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' });
    await eventually(() => h.kube.all('PersistentVolume').length === 0, 2000, 'volume deleted');
  });

  it('GIVEN a LoadBalancer Service over pods THEN it gets an ingress address and Endpoints list the ready pods', async () => {
    await h.kube.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    for (const name of ['web-a', 'web-b']) {
      await h.kube.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] } });
    }
    const ep: Loose = await eventually(() => {
      const obj: Loose = get('Endpoints', 'web');
      return obj?.subsets?.[0]?.addresses?.length === 2 && (obj as KubeObject);
    }, 3000, 'endpoints');
    expect(ep.subsets[0].ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(st(get('Service', 'web')).loadBalancer.ingress[0].ip).toMatch(/^198\.51\.100\./);
    await h.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web-a' });
    await eventually(() => loose(get('Endpoints', 'web'))?.subsets?.[0]?.addresses?.length === 1, 2000, 'one address left');
  });
});
