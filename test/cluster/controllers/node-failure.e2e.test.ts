/**
 * Node failure (issue #13): a node annotated `sim.baton.dev/node-down: "true"` goes NotReady with the
 * unreachable taints, its pods go Ready=False and stay; a StatefulSet pod is replaced only once it is
 * deleted, on another Ready node, keeping its claim and volume (a deleted claim gets a new volume);
 * removing the annotation brings the node back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/object.js';
import { eventually, hasCondition, loose, startHarness, st, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ podStartDelayMs: 10, readyDelayMs: 20 }, 3);
});
afterEach(async () => {
  await h.stop();
});

const get = (kind: string, name: string): KubeObject | undefined => h.kube.all(kind).find((o) => o.metadata.name === name);
const nodeOf = (pod: KubeObject | undefined): string => String(loose(pod)?.spec?.nodeName ?? '');
const setDown = (node: string, down: boolean) =>
  h.kube.patch({ apiVersion: 'v1', kind: 'Node', name: node }, { metadata: { annotations: { 'sim.baton.dev/node-down': down ? 'true' : null } } }, 'merge');

const sts: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    replicas: 2,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'main', image: 'redis:7' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

describe('node failure', () => {
  it('GIVEN a StatefulSet WHEN the node of db-0 fails THEN db-0 goes not Ready and stays; deleted, it comes back elsewhere with its claim', async () => {
    await h.kube.create(sts);
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 2, 5000, 'sts ready');
    const before = get('Pod', 'db-0');
    const lost = nodeOf(before);
    const claim = get('PersistentVolumeClaim', 'data-db-0');
    const volume = h.kube.all('PersistentVolume').find((pv) => loose(pv).spec.claimRef.uid === claim?.metadata.uid);

    await setDown(lost, true);
    const node = await eventually(() => {
      const n = get('Node', lost);
      return hasCondition(n, 'Ready', 'Unknown') && n;
    }, 5000, 'node NotReady');
    expect(loose(node).spec.taints.map((t: { key: string; effect: string }) => `${t.key}:${t.effect}`)).toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    await eventually(() => hasCondition(get('Pod', 'db-0'), 'Ready', 'False'), 5000, 'db-0 not ready');
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 1, 5000, 'sts sees one ready');
    // Not replaced: the same pod, still bound to the lost node.
    expect(get('Pod', 'db-0')?.metadata.uid).toBe(before?.metadata.uid);
    expect(nodeOf(get('Pod', 'db-0'))).toBe(lost);
    expect(h.kube.all('Event').some((e) => loose(e).reason === 'NodeNotReady' && loose(e).involvedObject.name === 'db-0')).toBe(true);

    await h.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'db-0' });
    const moved = await eventually(() => {
      const p = get('Pod', 'db-0');
      return p && p.metadata.uid !== before?.metadata.uid && hasCondition(p, 'Ready') && p;
    }, 5000, 'db-0 recreated and ready');
    expect(nodeOf(moved)).not.toBe(lost);
    expect(get('PersistentVolumeClaim', 'data-db-0')?.metadata.uid).toBe(claim?.metadata.uid);
    expect(h.kube.all('PersistentVolume').some((pv) => pv.metadata.name === volume?.metadata.name)).toBe(true);
    expect(loose(moved).spec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } });
    // Nothing new lands on the failed node.
    expect(h.kube.all('Pod').filter((p) => nodeOf(p) === lost && p.metadata.uid !== before?.metadata.uid)).toEqual([]);

    await setDown(lost, false);
    await eventually(() => hasCondition(get('Node', lost), 'Ready') && (loose(get('Node', lost)).spec.taints ?? []).length === 0, 5000, 'node back');
  });

  it('GIVEN a failed node WHEN a StatefulSet pod and its claim are deleted THEN the pod comes back with a new claim and a new volume', async () => {
    await h.kube.create({ ...sts, spec: { ...loose(sts).spec, replicas: 1 } });
    await eventually(() => st(get('StatefulSet', 'db')).readyReplicas === 1, 5000, 'sts ready');
    const oldClaim = get('PersistentVolumeClaim', 'data-db-0');
    const oldVolume = h.kube.all('PersistentVolume').find((pv) => loose(pv).spec.claimRef.uid === oldClaim?.metadata.uid);
    await setDown(nodeOf(get('Pod', 'db-0')), true);
    await eventually(() => hasCondition(get('Pod', 'db-0'), 'Ready', 'False'), 5000, 'db-0 not ready');
    await h.kube.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data-db-0' });
    await h.kube.delete({ apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'db-0' });
    await eventually(() => hasCondition(get('Pod', 'db-0'), 'Ready'), 5000, 'db-0 back');
    const newClaim = get('PersistentVolumeClaim', 'data-db-0');
    expect(newClaim?.metadata.uid).not.toBe(oldClaim?.metadata.uid);
    const newVolume = await eventually(() => h.kube.all('PersistentVolume').find((pv) => loose(pv).spec.claimRef.uid === newClaim?.metadata.uid), 5000, 'new volume');
    expect(newVolume.metadata.name).not.toBe(oldVolume?.metadata.name);
  });
});
