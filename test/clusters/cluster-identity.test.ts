/**
 * A cluster name re-pointed while an instance's status is missing (docs/clusters.md, "A cluster's
 * identity"): the status that records the server an instance's objects are on can be lost (or never
 * written: the agent applied, then died before its status commit). The agent's record of which cluster
 * (kube-system namespace uid) each baton.yaml name reached, kept in its own cluster, still stops the
 * instance (CLUSTER_IDENTITY_CHANGED) instead of deploying it a second time on the other cluster;
 * pointing the name back lets it go on, and forgetting the entry (the command the error gives) lets
 * the name be recorded anew.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusters, type ClusterSet } from '../../src/cluster/index.js';
import { identityRecordName } from '../../src/clusters/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/index.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { agentRepo, type AgentRepo, type CapturedIO } from '../helpers/agent-repo.js';
import { runKubectl } from '../helpers/cluster.js';
import type { WorkClone } from '../helpers/git-server.js';
import { API, instance } from '../sync/fixtures.js';

const baton = (context: string): string => [API, 'kind: Repository', 'clusters:', `  - { name: edge, context: ${context} }`, ''].join('\n');

describe('a cluster name re-pointed while an instance has no status', () => {
  let repo: AgentRepo;
  let set: ClusterSet;
  let user: WorkClone;
  let origin: string;
  let own: HttpKubeClient;
  let edge: HttpKubeClient;
  let other: HttpKubeClient;
  const uidOf = async (client: HttpKubeClient): Promise<string> => (await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'kube-system' }))?.metadata.uid ?? '';

  beforeAll(async () => {
    set = await startClusters(3, { controllers: false });
    own = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-1' });
    edge = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-2' });
    other = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-3' });
    repo = await agentRepo({ 'baton.yaml': baton('baton-sim-2'), 'instances/shop/far.yaml': `${instance({ VALUE: 'one' })}cluster: edge\n` }, 'an instance on edge');
    ({ user, origin } = repo);
  });
  afterAll(async () => {
    own.close();
    edge.close();
    other.close();
    await set.stop();
    repo.cleanup();
  });

  const agentOnce = (): Promise<CapturedIO> => repo.agentOnce(set.kubeconfigPath);
  const change = (message: string, edit: (clone: WorkClone) => void): Promise<void> => repo.change(message, edit);
  const value = async (client: HttpKubeClient): Promise<string | undefined> => {
    const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'far' });
    return (cm?.data as Record<string, string> | undefined)?.value;
  };
  const record = async (): Promise<Record<string, { uid: string; server: string; since: string }>> => {
    const cm = await own.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'baton-system', name: identityRecordName(origin, 'main') });
    const data = (cm?.data ?? {}) as Record<string, string>;
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON.parse(v) as { uid: string; server: string; since: string }]));
  };
  const hasStatus = (): boolean => user.git('ls-tree', '--name-only', 'HEAD', 'status/shop/far.yaml') !== '';

  it('GIVEN an instance deployed on edge THEN the agent has recorded the identity of the cluster "edge" reached, in its own cluster', async () => {
    const io = await agentOnce();
    expect(io.out).toContain('shop/far: deploy COMPLETE (new instance)');
    expect(await value(edge)).toBe('one');
    const edgeServer = edge.server.replace(/\/$/, '');
    expect(await record()).toEqual({ edge: { uid: await uidOf(edge), server: edgeServer, since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
    expect(await uidOf(edge)).not.toBe(await uidOf(other));
  });

  it('GIVEN the status file lost and "edge" pointed at another cluster in one commit THEN the instance is stopped with CLUSTER_IDENTITY_CHANGED and nothing is created there', async () => {
    await change('lose the status and re-point edge', (c) => {
      c.remove('status/shop/far.yaml');
      c.write('baton.yaml', baton('baton-sim-3'));
    });
    await user.pull();
    expect(hasStatus()).toBe(false);
    const io = await agentOnce();
    expect(io.exitCode).toBe(1);
    const otherServer = other.server.replace(/\/$/, '');
    expect(io.out).toContain(`shop/far: error: cluster "edge" in baton.yaml now reaches another cluster (the agent's kubeconfig ${set.kubeconfigPath}, context baton-sim-3, server ${otherServer}): its kube-system namespace uid is ${await uidOf(other)}, while the agent's record (ConfigMap baton-system/${identityRecordName(origin, 'main')} in the agent's own cluster) says "edge" reached the cluster with uid ${await uidOf(edge)}`);
    expect(io.out).toContain(`kubectl -n baton-system patch configmap ${identityRecordName(origin, 'main')} --type json -p '[{"op":"remove","path":"/data/edge"}]'`);
    // Nothing of the instance on the cluster "edge" reaches now: no objects, no checkpoint, no Events.
    expect(await other.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'far' })).toBeUndefined();
    expect(await other.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'baton-checkpoint-far' })).toBeUndefined();
    expect((await other.list('v1', 'Event', 'shop').catch(() => ({ items: [] }))).items).toEqual([]);
    expect(await value(edge)).toBe('one');
    // The record is kept as it was.
    expect((await record()).edge?.uid).toBe(await uidOf(edge));
    // The status written anew says why (and, having no record of a server, claims none).
    await user.pull();
    const s = parseStatus(user.git('show', 'HEAD:status/shop/far.yaml'), 'far');
    expect(s.cluster?.unreachable?.code).toBe('CLUSTER_IDENTITY_CHANGED');
    expect(s.cluster?.server).toBeUndefined();
  });

  it('GIVEN "edge" pointed back at its cluster THEN the instance goes on there (its checkpoint found again), nothing run twice', async () => {
    await change('edge: back', (c) => {
      c.write('baton.yaml', baton('baton-sim-2'));
      c.write('instances/shop/far.yaml', `${instance({ VALUE: 'two' })}cluster: edge\n`);
    });
    const io = await agentOnce();
    expect(io.exitCode).toBe(0);
    expect(io.out).not.toContain('new instance');
    expect(await value(edge)).toBe('two');
    await user.pull();
    const s = parseStatus(user.git('show', 'HEAD:status/shop/far.yaml'), 'far');
    expect(s.state).toBe('COMPLETE');
    expect(s.cluster).toEqual({ name: 'edge', server: edge.server.replace(/\/$/, '') });
  });

  it('GIVEN the instance removed on edge, the name re-pointed and its entry forgotten with the command the error gives THEN the name is recorded anew and a new instance deploys there', async () => {
    await change('remove far', (c) => c.remove('instances/shop/far.yaml'));
    expect((await agentOnce()).exitCode).toBe(0);
    expect(await value(edge)).toBeUndefined();
    await change('edge: another cluster, a new instance', (c) => {
      c.write('baton.yaml', baton('baton-sim-3'));
      c.write('instances/shop/near.yaml', `${instance({ VALUE: 'three' })}cluster: edge\n`);
    });
    // Still refused: the record does not know the instances on the old cluster are gone.
    const refused = await agentOnce();
    expect(refused.out).toContain('shop/near: error: cluster "edge" in baton.yaml now reaches another cluster');
    expect(await other.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'near' })).toBeUndefined();
    const forget = /`(kubectl -n baton-system patch configmap [^`]+)`/.exec(refused.out)?.[1] ?? '';
    const args = (/^kubectl (.*) -p '(.*)'$/.exec(forget) ?? []).slice(1);
    expect(args).toHaveLength(2);
    const r = await runKubectl(set.kubeconfigPath, join(repo.sandbox.dir, 'kubectl-cache'), ['--context', 'baton-sim-1', ...(args[0] ?? '').split(' '), '-p', args[1] ?? '']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await record()).toEqual({});
    const io = await agentOnce();
    // (Not "new instance": the refused pass wrote its status.)
    expect(io.out).toMatch(/shop\/near: deploy COMPLETE/);
    expect((await other.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'near' }))).toBeDefined();
    expect((await record()).edge?.uid).toBe(await uidOf(other));
  });
});
