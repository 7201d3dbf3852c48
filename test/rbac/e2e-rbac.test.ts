/**
 * `baton rbac` against the simulated cluster with RBAC on: the agent's ServiceAccount, with exactly the
 * rules baton rbac prints for a repository, runs that repository's plan to COMPLETE, and may not read
 * what the rules do not grant (Secrets in kube-system, objects in other namespaces).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { rbacFor } from '../../src/rbac/index.js';
import { MemoryTree, Renderer } from '../../src/render/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { gitSandbox, workClone, type GitSandbox } from '../helpers/git-server.js';
import { instance, mirrorOf, testAgent, webFramework } from '../sync/fixtures.js';
import { ShardMember, memberLeaseName } from '../../src/shards/index.js';
import { until } from '../helpers/wait.js';

describe('baton rbac on a cluster with RBAC on', () => {
  let cluster: TestCluster;
  let sandbox: GitSandbox;
  let renderer: Renderer;
  let admin: HttpKubeClient;
  let agentClient: HttpKubeClient;
  let origin: string;
  const files: Record<string, string> = { ...webFramework(), 'instances/shop/site.yaml': instance({ VALUE: 'x' }) };

  beforeAll(async () => {
    cluster = await startTestCluster({ rbac: true });
    sandbox = gitSandbox();
    renderer = new Renderer();
    origin = join(sandbox.dir, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', origin], { env: sandbox.env });
    const user = await workClone(sandbox.env, origin, join(sandbox.dir, 'user'));
    for (const [path, text] of Object.entries(files)) user.write(path, text);
    user.commit('one instance');
    await user.push();
    const caData = /certificate-authority-data: (\S+)/.exec(cluster.kubeconfig)?.[1];
    admin = await createKubeClient({ url: cluster.url, token: cluster.token, ...(caData ? { caData } : {}) });
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'baton-system' } });
    await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'baton-agent', namespace: 'baton-system' } });
    const { objects } = await rbacFor(new MemoryTree(files), renderer, { serviceAccount: { namespace: 'baton-system', name: 'baton-agent' } });
    for (const o of objects) await admin.apply(o, { fieldManager: 'test', force: true });
    const token = (await cluster.kubectl(['create', 'token', 'baton-agent', '-n', 'baton-system'])).stdout.trim();
    expect(token.length).toBeGreaterThan(20);
    agentClient = await createKubeClient({ url: cluster.url, token, ...(caData ? { caData } : {}) });
  }, 120_000);
  afterAll(async () => {
    await renderer.close();
    admin.close();
    agentClient.close();
    await cluster.stop();
    sandbox.cleanup();
  });

  it('the agent with exactly those rules runs the plan to COMPLETE', async () => {
    const agent = testAgent(mirrorOf({ sandbox, origin }), agentClient, renderer);
    await agent.start();
    const report = await agent.pass();
    await agent.stop();
    expect(report.reports.map((r) => [r.instance, r.outcome.kind])).toEqual([['shop/site', 'complete']]);
    expect(((await admin.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'site' }))?.data as Record<string, string>).value).toBe('x');
  }, 120_000);

  it('a shard member with those rules joins, reads the other members and deletes the lease of one long gone', async () => {
    const gone = memberLeaseName('rbac', 'deadbeef00');
    const logs: string[] = [];
    await admin.create({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: gone, namespace: 'baton-system', labels: { 'baton.dev/shard-set': 'rbac' }, annotations: { 'baton.dev/member': 'deadbeef00', 'baton.dev/config-hash': 'x' } },
      spec: { holderIdentity: 'gone', leaseDurationSeconds: 1, renewTime: '2026-01-01T00:00:00.000000Z' },
    });
    const member = new ShardMember({ client: agentClient, shardSet: 'rbac', namespace: 'baton-system', identity: 'rbac-member', config: { repo: origin, branch: 'main' }, leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100, log: (level, message) => logs.push(`${level} ${message}`) });
    const abort = new AbortController();
    const done = member.run((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })), abort.signal);
    let outcome = 'running';
    void done.then((r) => { outcome = r.kind; });
    // The member deletes a lease it has seen quiet for three of its lease durations; it must keep its own
    // (700 ms renew deadline) that long. On failure: whether it still ran, and its log.
    await until(async () => (await admin.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'baton-system', name: gone })) === undefined, 60_000, 'the gone member\'s lease deleted')
      .catch((err: Error) => { throw new Error(`${err.message}; the member: ${outcome}; its log:\n${logs.join('\n')}`); });
    expect(member.mayAct('shop/site')).toBe(true);
    abort.abort();
    expect((await done).kind).toBe('aborted');
    expect(await admin.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'baton-system', name: member.lease.name })).toBeUndefined();
  }, 120_000);

  it('and nothing more: no Secrets of kube-system, no objects in other namespaces', async () => {
    await expect(agentClient.list('v1', 'Secret', 'kube-system')).rejects.toThrow(/forbidden/);
    await expect(agentClient.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } })).rejects.toThrow(/forbidden/);
    await expect(agentClient.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'shop' }, spec: {} })).rejects.toThrow(/forbidden/);
  });
});
