/**
 * Clusters that cannot be used (issue #20 "Bad input and faults", docs/clusters.md), end to end with
 * `baton agent --once`, its own cluster the first of two simulated clusters:
 * - `locked`: a simulated cluster with TLS and a bearer token, named in baton.yaml by a kubeconfig file
 *   carrying a wrong token. Every request gets 401: the agent reports CLUSTER_UNAUTHORIZED naming the
 *   cluster, kubeconfig and server; the status says so once; nothing is created there or elsewhere;
 *   instances on the own cluster complete. With the right token the next poll deploys it there.
 * - `vault`: the kubeconfig-Secret source of in-cluster agents. The Secret, held by the own cluster,
 *   points at the second simulated cluster. Missing, without its key, holding a malformed kubeconfig:
 *   CLUSTER_CONFIG naming the Secret, nothing applied; once right, the instance lands in the second
 *   cluster and not in the own one, and its status drops the error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../src/cluster/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/index.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { startRepoHarness, type CliRun, type RepoHarness } from '../helpers/agent-harness.js';
import type { WorkClone } from '../helpers/git-server.js';
import { API, instance } from '../sync/fixtures.js';

let h: RepoHarness;
let locked: Cluster;
let user: WorkClone;
let own: HttpKubeClient;
let far: HttpKubeClient;
let lockedAdmin: HttpKubeClient;
let wrongKubeconfig: string;

const SECRET = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'vault-kubeconfig', namespace: 'baton-system' } };
const b64 = (text: string): string => Buffer.from(text).toString('base64');

beforeAll(async () => {
  locked = await startCluster({ name: 'locked-sim', tls: true, controllers: false });
  expect(locked.token).not.toBe('');
  h = await startRepoHarness({
    clusters: 2,
    files: {
      'instances/shop/home.yaml': instance({ VALUE: 'home' }),
      'instances/shop/guarded.yaml': `${instance({ VALUE: 'guarded' })}cluster: locked\n`,
      'instances/shop/remote.yaml': `${instance({ VALUE: 'remote' })}cluster: vault\n`,
    },
    prepare: (world) => {
      wrongKubeconfig = join(world.sandbox.dir, 'locked.kubeconfig');
      writeFileSync(wrongKubeconfig, locked.kubeconfig.replace(locked.token, 'not-the-token'));
      world.user.write('baton.yaml', [API, 'kind: Repository', 'clusters:', `  - { name: locked, kubeconfig: ${wrongKubeconfig} }`, '  - { name: vault, secret: { namespace: baton-system, name: vault-kubeconfig } }', ''].join('\n'));
    },
    message: 'instances on three clusters',
  });
  ({ user, client: own } = h);
  far = await h.clientOf('baton-sim-2');
  lockedAdmin = await createKubeClient({ kubeconfigPath: locked.kubeconfigPath });
  await own.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'baton-system' } });
});
afterAll(async () => {
  lockedAdmin.close();
  await h.stop();
  await locked.stop();
});

const agentOnce = (): Promise<CliRun> => h.agentOnce();
const status = async (name: string): Promise<InstanceStatus> => {
  await user.pull();
  return parseStatus(user.git('show', `HEAD:status/shop/${name}.yaml`), name);
};
const statusCommits = async (name: string): Promise<number> => {
  await user.pull();
  return Number(user.git('rev-list', '--count', 'HEAD', '--', `status/shop/${name}.yaml`));
};
const configMaps = async (client: HttpKubeClient): Promise<string[]> => (await client.list('v1', 'ConfigMap', 'shop').catch(() => ({ items: [] }))).items.map((o) => o.metadata.name ?? '');

describe('a cluster whose credentials are refused', () => {
  it('GIVEN a kubeconfig with a wrong token THEN CLUSTER_UNAUTHORIZED names the cluster, kubeconfig and server, the status says so once, nothing is applied, and the own cluster goes on', async () => {
    const io = await agentOnce();
    expect(io.out).toContain('shop/home: deploy COMPLETE (new instance)');
    const server = locked.url.replace(/\/$/, '');
    expect(io.out).toContain(`shop/guarded: error: cluster "locked" refused the agent's credentials (kubeconfig ${wrongKubeconfig}, server ${server}): 401 Unauthorized`);
    expect(io.out).toMatch(/shop\/guarded: error: .*try: renew the token or client certificate of that kubeconfig user \(`kubectl --kubeconfig \S+ get namespaces`\); instances on other clusters go on/);
    expect(io.code).toBe(1);
    const guarded = await status('guarded');
    expect(guarded.cluster?.name).toBe('locked');
    expect(guarded.cluster?.unreachable?.code).toBe('CLUSTER_UNAUTHORIZED');
    expect(guarded.cluster?.unreachable?.message).toContain(`cluster "locked" refused the agent's credentials (kubeconfig ${wrongKubeconfig}, server ${server})`);
    expect(guarded.state).toBe('PENDING');
    expect(guarded.inventory).toEqual([]);
    // Nothing of it anywhere: not in locked (read with the right token), not in the own cluster.
    expect(await configMaps(lockedAdmin)).toEqual([]);
    expect(await configMaps(own)).not.toContain('guarded');
    // A second poll failing the same way writes nothing more.
    const before = await statusCommits('guarded');
    expect(before).toBe(1);
    await agentOnce();
    expect(await statusCommits('guarded')).toBe(before);
  });

  it('GIVEN the same wrong token WHEN baton apply runs the instance by hand THEN it fails with the same CLUSTER_UNAUTHORIZED error and applies nothing', async () => {
    await user.pull();
    const io = await h.baton(['apply', 'instances/shop/guarded.yaml', '--kubeconfig', h.kubeconfigPath], user.dir);
    expect(io.code).toBe(1);
    expect(io.err).toContain(`error: cluster "locked" refused the agent's credentials (kubeconfig ${wrongKubeconfig}, server ${locked.url.replace(/\/$/, '')}): 401 Unauthorized`);
    expect(await configMaps(lockedAdmin)).toEqual([]);
    expect(await configMaps(own)).not.toContain('guarded');
  });
});

describe('a cluster whose kubeconfig is a Secret of the own cluster', () => {
  it.each([
    ['missing', undefined, 'Secret baton-system/vault-kubeconfig does not exist in the agent\'s own cluster'],
    ['without its key', { config: b64('x') }, 'Secret baton-system/vault-kubeconfig has no key "kubeconfig" (keys: config)'],
    ['holding a malformed kubeconfig', { kubeconfig: b64('clusters: [oops\n') }, 'cannot load kubeconfig Secret baton-system/vault-kubeconfig key kubeconfig: unexpected end of the stream'],
    ['holding a kubeconfig without a cluster', { kubeconfig: b64('apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n') }, 'Secret baton-system/vault-kubeconfig key kubeconfig'],
  ])('GIVEN the Secret %s THEN CLUSTER_CONFIG names the Secret, and nothing is applied anywhere', async (_name, data, message) => {
    await own.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'baton-system', name: 'vault-kubeconfig' }).catch(() => undefined);
    if (data !== undefined) await own.create({ ...SECRET, data });
    const io = await agentOnce();
    const line = io.out.split('\n').find((l) => l.startsWith('shop/remote: '));
    expect(line).toMatch(/^shop\/remote: error: cluster "vault" cannot be connected to \(kubeconfig in Secret baton-system\/vault-kubeconfig key kubeconfig\): /);
    expect(line).toContain(message);
    expect(line).toContain('try: check baton.yaml clusters (kubeconfig, context, secret)');
    const remote = await status('remote');
    expect(remote.cluster?.name).toBe('vault');
    expect(remote.cluster?.unreachable?.code).toBe('CLUSTER_CONFIG');
    expect(remote.inventory).toEqual([]);
    expect(await configMaps(far)).not.toContain('remote');
    expect(await configMaps(own)).not.toContain('remote');
    // One status commit for the whole run of CLUSTER_CONFIG failures, however the Secret is wrong.
    expect(await statusCommits('remote')).toBe(1);
  });

  it('GIVEN the Secret fixed to point at the second cluster THEN the instance lands there, not in the own cluster, and its status drops the error', async () => {
    await own.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'baton-system', name: 'vault-kubeconfig' }).catch(() => undefined);
    await own.create({ ...SECRET, data: { kubeconfig: b64(h.clusters[1]!.kubeconfig) } });
    const io = await agentOnce();
    expect(io.out).toContain('shop/remote: deploy COMPLETE');
    expect(await configMaps(far)).toEqual(expect.arrayContaining(['remote', 'baton-checkpoint-remote']));
    expect(await configMaps(own)).not.toContain('remote');
    const remote = await status('remote');
    expect(remote.state).toBe('COMPLETE');
    expect(remote.cluster).toEqual({ name: 'vault', server: h.clusters[1]!.url.replace(/\/$/, '') });
  });

  it('GIVEN the right token for locked THEN the next poll deploys its instance there', async () => {
    writeFileSync(wrongKubeconfig, locked.kubeconfig);
    const io = await agentOnce();
    expect(io.out).toContain('shop/guarded: deploy COMPLETE');
    expect(await configMaps(lockedAdmin)).toEqual(expect.arrayContaining(['guarded', 'baton-checkpoint-guarded']));
    expect((await status('guarded')).cluster).toEqual({ name: 'locked', server: locked.url.replace(/\/$/, '') });
  });
});
