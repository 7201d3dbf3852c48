import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deployment, eventually, startHarness, st, type Harness, type Loose } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.stop();
});

const get = (kind: string, name: string) => h.kube.all(kind).find((o) => o.metadata.name === name);

describe('Deployment -> ReplicaSet -> Pods through the API', () => {
  it('GIVEN a Deployment of 3 WHEN the controllers run THEN it becomes Available with 3 ready pods', async () => {
    await h.kube.create(deployment('web', 3));
    const d = await eventually(() => {
      const obj = get('Deployment', 'web');
      return st(obj).availableReplicas === 3 && obj;
    }, 5000, 'web available');
    expect(st(d).conditions.map((c: Loose) => [String(c.type), String(c.status), String(c.reason)])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ]);
    expect(h.kube.all('Pod')).toHaveLength(3);
    const rs = h.kube.all('ReplicaSet')[0]!;
    expect(rs.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(h.kube.all('Pod').every((p) => p.metadata.labels?.['pod-template-hash'] === rs.metadata.labels?.['pod-template-hash'])).toBe(true);
    expect(h.errors).toEqual([]);
  });
});

async function setImage(name: string, image: string): Promise<void> {
  await h.kube.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name }, { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } }, 'merge');
}

const rolledOut = (name: string, replicas: number) => () => {
  const d = get('Deployment', name);
  const s = st(d);
  return s.observedGeneration === d?.metadata.generation && s.updatedReplicas === replicas && s.availableReplicas === replicas && s.replicas === replicas && d;
};

describe('rolling updates', () => {
  it.each([
    ['maxSurge 1, maxUnavailable 0', 1, 0],
    ['maxSurge 0, maxUnavailable 1', 0, 1],
    ['maxSurge 2, maxUnavailable 1', 2, 1],
  ])('GIVEN %s WHEN the image changes THEN pods are replaced within the limits', async (_name, maxSurge, maxUnavailable) => {
    await h.kube.create(deployment('web', 4, 'nginx:1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } }));
    await eventually(rolledOut('web', 4), 5000, 'first rollout');
    await setImage('web', 'nginx:2');
    const violations: string[] = [];
    const sample = setInterval(() => {
      const pods = h.kube.all('Pod');
      const ready = pods.filter((p) => st(p).conditions?.some((c: Loose) => c.type === 'Ready' && c.status === 'True')).length;
      if (pods.length > 4 + maxSurge) violations.push(`${pods.length} pods`);
      if (ready < 4 - maxUnavailable) violations.push(`${ready} ready`);
    }, 1);
    const d = await eventually(() => {
      const done = rolledOut('web', 4)();
      return done && h.kube.all('Pod').every((p: Loose) => p.spec.containers[0].image === 'nginx:2') && done;
    }, 8000, 'second rollout');
    clearInterval(sample);
    expect(violations).toEqual([]);
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const sets = h.kube.all('ReplicaSet').map((rs: Loose): unknown[] => [rs.metadata.annotations['deployment.kubernetes.io/revision'], rs.spec.replicas]).sort();
    expect(sets).toEqual([['1', 0], ['2', 4]]);
  });

  it('GIVEN a rollout to an image that never becomes ready WHEN the progress deadline passes THEN Progressing is False with ProgressDeadlineExceeded', async () => {
    await h.kube.create(deployment('web', 2, 'nginx:1', { progressDeadlineSeconds: 1 }));
    await eventually(rolledOut('web', 2), 5000, 'first rollout');
    await setImage('web', 'nginx:does-not-exist');
    const d = await eventually(() => {
      const obj = get('Deployment', 'web');
      return (st(obj).conditions?.some((c: Loose) => c.reason === 'ProgressDeadlineExceeded') as boolean) && obj;
    }, 4000, 'deadline');
    expect(st(d).conditions.find((c: Loose) => c.type === 'Progressing')).toMatchObject({ status: 'False', message: expect.stringContaining('has timed out progressing') });
    // the old pods keep serving: maxUnavailable 25% of 2 rounds down to 0
    expect(st(d).availableReplicas).toBe(2);
  });

  it('GIVEN two revisions WHEN the template goes back to the first THEN the old ReplicaSet is reused with the next revision number', async () => {
    await h.kube.create(deployment('web', 1, 'nginx:1'));
    await eventually(rolledOut('web', 1), 5000, 'rollout 1');
    await setImage('web', 'nginx:2');
    await eventually(() => rolledOut('web', 1)() && get('Deployment', 'web')?.metadata.annotations?.['deployment.kubernetes.io/revision'] === '2', 5000, 'rollout 2');
    await setImage('web', 'nginx:1');
    await eventually(() => rolledOut('web', 1)() && get('Deployment', 'web')?.metadata.annotations?.['deployment.kubernetes.io/revision'] === '3', 5000, 'rollback');
    expect(h.kube.all('ReplicaSet')).toHaveLength(2);
  });

  it.each([
    ['up', 2, 5],
    ['down', 5, 1],
  ])('scales %s from %i to %i', async (_dir, from, to) => {
    await h.kube.create(deployment('web', from));
    await eventually(rolledOut('web', from), 5000, 'initial');
    await h.kube.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, { spec: { replicas: to } }, 'merge');
    await eventually(() => rolledOut('web', to)() && h.kube.all('Pod').length === to, 5000, 'scaled');
  });

  it('GIVEN a Recreate strategy WHEN the image changes THEN old pods are gone before new ones start', async () => {
    await h.kube.create(deployment('web', 2, 'nginx:1', { strategy: { type: 'Recreate' } }));
    await eventually(rolledOut('web', 2), 5000, 'first');
    await setImage('web', 'nginx:2');
    let mixed = false;
    const sample = setInterval(() => {
      const images = new Set(h.kube.all('Pod').map((p: Loose) => String(p.spec.containers[0].image)));
      if (images.size > 1) mixed = true;
    }, 1);
    await eventually(() => rolledOut('web', 2)() && h.kube.all('Pod').every((p: Loose) => p.spec.containers[0].image === 'nginx:2'), 5000, 'second');
    clearInterval(sample);
    expect(mixed).toBe(false);
  });

  it('GIVEN a Deployment WHEN it is deleted THEN its ReplicaSets and pods go too', async () => {
    await h.kube.create(deployment('web', 2));
    await eventually(rolledOut('web', 2), 5000, 'rollout');
    await h.kube.delete({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' });
    await eventually(() => h.kube.all('Pod').length === 0 && h.kube.all('ReplicaSet').length === 0, 2000, 'cleanup');
    // Nothing comes back once the controllers have nothing left to do.
    await h.manager.settled();
    expect(h.kube.all('Pod')).toEqual([]);
  });
});

describe('zero delays, for benchmarks', () => {
  it('GIVEN zero start and ready delays THEN each pod goes Ready in a single status write', async () => {
    await h.stop();
    h = await startHarness({ podStartDelayMs: 0, readyDelayMs: 0 });
    await h.kube.create(deployment('fast', 20));
    await eventually(rolledOut('fast', 20), 5000, 'rollout');
    const statusWrites = h.kube.calls.filter((c) => c.startsWith('patch Pod ') && c.endsWith('/status')).length;
    expect(statusWrites).toBe(20);
  });
});
