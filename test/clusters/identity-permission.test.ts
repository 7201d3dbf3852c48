/**
 * A baton.yaml cluster where the agent's account may not `get` namespace kube-system (docs/clusters.md,
 * "A cluster's identity"): the agent reads that namespace's uid before anything is read or written for
 * an instance on the name, so without the permission the instances there fail, end to end with
 * `baton agent --once`, its own cluster the first of two simulated clusters and `guarded` a third with
 * RBAC on, where the agent acts as User `baton-agent` with every right the instance's plan needs (its
 * namespace, ConfigMaps, Events) but not that one.
 * GIVEN the permission missing THEN CLUSTER_CONFIG names the cluster, the account, the missing
 * permission (get namespaces kube-system) and the commands that grant it; nothing of the instance is in
 * `guarded` (no namespace, object or checkpoint) nor in the record of identities; instances on the own
 * and the other cluster complete. GIVEN the commands the error gives run by an administrator THEN the
 * next poll records the identity and deploys the instance there.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../src/cluster/index.js';
import { identityRecordName } from '../../src/clusters/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/index.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { startRepoHarness, type RepoHarness } from '../helpers/agent-harness.js';
import { runKubectl } from '../helpers/cluster.js';
import { API, instance } from '../sync/fixtures.js';

const RBAC = 'rbac.authorization.k8s.io/v1';
let h: RepoHarness;
let guarded: Cluster;
let admin: HttpKubeClient;
let near: HttpKubeClient;

/** What the instance's plan needs in `guarded` (its namespace, ConfigMaps, Events), and not `get` on kube-system. */
const deployer = {
  apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'baton-deployer' },
  rules: [
    { apiGroups: [''], resources: ['namespaces'], verbs: ['create'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['shop'] },
    { apiGroups: [''], resources: ['configmaps', 'events'], verbs: ['*'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['*'] },
  ],
};

beforeAll(async () => {
  guarded = await startCluster({ name: 'guarded-sim', rbac: true, controllers: false, users: [{ name: 'baton-agent' }] });
  admin = await createKubeClient({ kubeconfigPath: guarded.kubeconfigPath });
  await admin.create(deployer);
  await admin.create({ apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: 'baton-deployer' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'baton-deployer' }, subjects: [{ kind: 'User', name: 'baton-agent' }] });
  h = await startRepoHarness({
    clusters: 2,
    files: {
      'instances/shop/home.yaml': instance({ VALUE: 'home' }),
      'instances/shop/beside.yaml': `${instance({ VALUE: 'beside' })}cluster: near\n`,
      'instances/shop/held.yaml': `${instance({ VALUE: 'held' })}cluster: guarded\n`,
    },
    prepare: (world) => {
      world.user.write('baton.yaml', [API, 'kind: Repository', 'clusters:', '  - { name: near, context: baton-sim-2 }', `  - { name: guarded, kubeconfig: ${guarded.kubeconfigPath}, context: guarded-sim-baton-agent }`, ''].join('\n'));
    },
    message: 'instances on three clusters',
  });
  near = await h.clientOf('baton-sim-2');
});
afterAll(async () => {
  admin.close();
  await h.stop();
  await guarded.stop();
});

const status = async (name: string): Promise<InstanceStatus> => {
  await h.user.pull();
  return parseStatus(h.user.git('show', `HEAD:status/shop/${name}.yaml`), name);
};
const configMaps = async (client: HttpKubeClient): Promise<string[]> => (await client.list('v1', 'ConfigMap', 'shop').catch(() => ({ items: [] }))).items.map((o) => o.metadata.name ?? '');
const recorded = async (): Promise<string[]> => {
  const cm = await h.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'baton-system', name: identityRecordName(h.world.origin, 'main') });
  return Object.keys(cm?.data ?? {}).sort();
};

describe('a cluster where the agent may not read namespace kube-system', () => {
  let commands: string[] = [];

  it('GIVEN no `get` on namespaces there THEN CLUSTER_CONFIG names the cluster, the account, the permission and what to run; nothing is applied there; the other clusters go on', async () => {
    const io = await h.agentOnce();
    expect(io.code).toBe(1);
    expect(io.out).toContain('shop/home: deploy COMPLETE (new instance)');
    expect(io.out).toContain('shop/beside: deploy COMPLETE (new instance)');
    const line = io.out.split('\n').find((l) => l.startsWith('shop/held: ')) ?? '';
    const server = guarded.url.replace(/\/$/, '');
    expect(line).toContain(`shop/held: error: cluster "guarded" does not let the agent read its identity (kubeconfig ${guarded.kubeconfigPath}, context guarded-sim-baton-agent, server ${server}): `);
    expect(line).toContain('the agent\'s account there (User "baton-agent") may not `get` namespace kube-system (403 Forbidden)');
    expect(line).toContain('nothing is read or written for instances on "guarded" until it may');
    expect(line).toContain('instances on other clusters go on');
    commands = [...line.matchAll(/`(kubectl create [^`]+)`/g)].map((m) => m[1] ?? '');
    expect(commands).toEqual([
      'kubectl create clusterrole baton-cluster-identity --verb=get --resource=namespaces --resource-name=kube-system',
      'kubectl create clusterrolebinding baton-cluster-identity --clusterrole=baton-cluster-identity --user=baton-agent',
    ]);
    const held = await status('held');
    expect(held.state).toBe('PENDING');
    expect(held.inventory).toEqual([]);
    expect(held.cluster?.name).toBe('guarded');
    expect(held.cluster?.unreachable?.code).toBe('CLUSTER_CONFIG');
    expect(held.cluster?.unreachable?.message).toContain('may not `get` namespace kube-system');
    // Nothing half-applied: no namespace, object, checkpoint or Event of the instance in guarded, none elsewhere.
    expect(await admin.get({ apiVersion: 'v1', kind: 'Namespace', name: 'shop' })).toBeUndefined();
    expect(await configMaps(admin)).toEqual([]);
    expect(await configMaps(h.client)).not.toContain('held');
    expect(await configMaps(near)).not.toContain('held');
    // The other clusters' instances are whole, and only their names are in the record of identities.
    expect(await configMaps(near)).toEqual(expect.arrayContaining(['beside', 'baton-checkpoint-beside']));
    expect((await status('beside')).state).toBe('COMPLETE');
    expect((await status('home')).state).toBe('COMPLETE');
    expect(await recorded()).toEqual(['near']);
  });

  it('GIVEN the commands the error gives run by an administrator of that cluster THEN the next poll records its identity and deploys the instance there', async () => {
    expect(commands).toHaveLength(2);
    for (const command of commands) {
      const r = await runKubectl(guarded.kubeconfigPath, join(h.world.sandbox.dir, 'kubectl-guarded'), command.split(' ').slice(1));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const io = await h.agentOnce();
    expect(io.code).toBe(0);
    expect(io.out).toContain('shop/held: deploy COMPLETE');
    expect(await configMaps(admin)).toEqual(expect.arrayContaining(['held', 'baton-checkpoint-held']));
    const held = await status('held');
    expect(held.state).toBe('COMPLETE');
    expect(held.cluster).toEqual({ name: 'guarded', server: guarded.url.replace(/\/$/, '') });
    expect(await recorded()).toEqual(['guarded', 'near']);
  });
});
