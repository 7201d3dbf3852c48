/**
 * A change of a cluster's declaration in baton.yaml (docs/clusters.md, "A cluster's declaration
 * changed"): the status of an instance records the API server its objects are on; a new kubeconfig,
 * context or credentials reaching the same server keep working, while the name pointing at another
 * server is refused (CLUSTER_SERVER_CHANGED, located in baton.yaml) and nothing is applied or read
 * there, until baton.yaml points back at the recorded server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { startClusters, type ClusterSet } from '../../src/cluster/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/index.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { agentRepo, type AgentRepo, type CapturedIO } from '../helpers/agent-repo.js';
import type { WorkClone } from '../helpers/git-server.js';
import { API, instance } from '../sync/fixtures.js';

const baton = (edge: string): string => [API, 'kind: Repository', 'clusters:', `  - ${edge}`, ''].join('\n');

describe('a cluster name pointed at another API server in baton.yaml', () => {
  let repo: AgentRepo;
  let set: ClusterSet;
  let user: WorkClone;
  let own: HttpKubeClient;
  let edge: HttpKubeClient;
  let edgeServer: string;
  let ownServer: string;
  /** Another kubeconfig file reaching edge's server (another context name and user): a rotation. */
  let rotated: string;

  beforeAll(async () => {
    set = await startClusters(2, { controllers: false });
    own = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-1' });
    edge = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-2' });
    ownServer = own.server.replace(/\/$/, '');
    edgeServer = edge.server.replace(/\/$/, '');
    repo = await agentRepo({ 'baton.yaml': baton('{ name: edge, context: baton-sim-2 }'), 'instances/shop/far.yaml': `${instance({ VALUE: 'one' })}cluster: edge\n` }, 'an instance on edge');
    user = repo.user;
    rotated = join(repo.sandbox.dir, 'rotated.kubeconfig');
    writeFileSync(rotated, jsYaml.dump({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'edge-rotated',
      clusters: [{ name: 'edge-again', cluster: { server: `${edgeServer}/` } }],
      users: [{ name: 'rotated', user: { token: 'rotated-token' } }],
      contexts: [{ name: 'edge-rotated', context: { cluster: 'edge-again', user: 'rotated' } }],
    }));
  });
  afterAll(async () => {
    own.close();
    edge.close();
    await set.stop();
    repo.cleanup();
  });

  const agentOnce = (): Promise<CapturedIO> => repo.agentOnce(set.kubeconfigPath);
  const status = async (): Promise<InstanceStatus> => {
    await user.pull();
    return parseStatus(user.git('show', 'HEAD:status/shop/far.yaml'), 'far');
  };
  const change = (message: string, files: Record<string, string>): Promise<void> =>
    repo.change(message, (c) => { for (const [path, text] of Object.entries(files)) c.write(path, text); });
  const value = async (client: HttpKubeClient): Promise<string | undefined> => {
    const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'far' });
    return (cm?.data as Record<string, string> | undefined)?.value;
  };

  it('GIVEN an instance deployed on edge THEN its status records the server its objects are on', async () => {
    const io = await agentOnce();
    expect(io.out).toContain('shop/far: deploy COMPLETE (new instance)');
    expect((await status()).cluster).toEqual({ name: 'edge', server: edgeServer });
  });

  it('GIVEN edge declared by another kubeconfig file, context and credentials reaching the same server THEN the instance goes on there, unrefused', async () => {
    await change('edge: a rotated kubeconfig for the same server', {
      'baton.yaml': baton(`{ name: edge, kubeconfig: ${rotated} }`),
      'instances/shop/far.yaml': `${instance({ VALUE: 'two' })}cluster: edge\n`,
    });
    const io = await agentOnce();
    expect(io.out).not.toMatch(/refused/);
    expect(io.out).toMatch(/shop\/far: \w+ COMPLETE/);
    expect(await value(edge)).toBe('two');
    const s = await status();
    expect(s.refusal).toBeUndefined();
    expect(s.cluster).toEqual({ name: 'edge', server: edgeServer });
  });

  it('GIVEN edge now pointing at another server THEN the instance is stopped with an error naming baton.yaml, the cluster, both servers and what to do; nothing is read or written on the new server', async () => {
    await change('edge: another server', {
      'baton.yaml': baton('{ name: edge, context: baton-sim-1 }'),
      'instances/shop/far.yaml': `${instance({ VALUE: 'three' })}cluster: edge\n`,
    });
    const io = await agentOnce();
    expect(io.exitCode).toBe(1);
    const esc = (t: string): string => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const line = new RegExp(`shop/far: error: cluster "edge" in baton\\.yaml now reaches another API server \\(the agent's kubeconfig [^,]+, context baton-sim-1, server ${esc(ownServer)}\\): `
      + `instance shop/far's objects and checkpoint are on server ${esc(edgeServer)} \\(its status records it\\).*; Baton does not move instances between API servers: point cluster "edge" in baton\\.yaml back at ${esc(edgeServer)} `
      + `\\(another kubeconfig, context or credentials for that same server are fine\\); to move instances to ${esc(ownServer)}, remove their files while the name still reaches ${esc(edgeServer)}`);
    expect(io.out).toMatch(line);
    const s = await status();
    // The record of where the objects are survives: state, inventory and server as they were.
    expect(s.state).toBe('COMPLETE');
    expect(s.inventory.length).toBeGreaterThan(0);
    expect(s.cluster?.server).toBe(edgeServer);
    expect(s.cluster?.unreachable?.code).toBe('CLUSTER_SERVER_CHANGED');
    expect(s.cluster?.unreachable?.message).toMatch(/cluster "edge" in baton\.yaml now reaches another API server/);
    expect(await own.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'far' })).toBeUndefined();
    expect(await own.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'baton-checkpoint-far' })).toBeUndefined();
    expect((await own.list('v1', 'Event', 'shop').catch(() => ({ items: [] }))).items.filter((e) => JSON.stringify(e).includes('far'))).toEqual([]);
    expect(await value(edge)).toBe('two');
    // The next pass stops the same way and writes nothing more (the status does not flap).
    const commits = (): number => Number(user.git('rev-list', '--count', 'HEAD', '--', 'status/shop/far.yaml'));
    const before = commits();
    expect((await agentOnce()).out).toMatch(line);
    await user.pull();
    expect(commits()).toBe(before);
  });

  it('GIVEN baton.yaml pointing edge back at its server THEN the refusal clears and the change is applied there', async () => {
    await change('edge: back to its server', { 'baton.yaml': baton('{ name: edge, context: baton-sim-2 }') });
    const io = await agentOnce();
    expect(io.out).not.toMatch(/refused/);
    expect(await value(edge)).toBe('three');
    const s = await status();
    expect(s.refusal).toBeUndefined();
    expect(s.state).toBe('COMPLETE');
    expect(readFileSync(join(repo.sandbox.dir, 'user', 'baton.yaml'), 'utf8')).toContain('baton-sim-2');
  });
});
