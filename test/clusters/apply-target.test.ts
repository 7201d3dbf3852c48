/**
 * `baton apply` and `baton delete` act on the instance's target cluster as the agent would
 * (docs/clusters.md): the file's `cluster:` resolved through the repository's baton.yaml with the
 * agent's ClusterClient, `--cluster NAME` choosing one for an instance that names none, a contradiction a
 * usage error (exit 2) that changes nothing. Two simulated clusters; kubectl-independent reads of each
 * show objects and checkpoint in the right one and not the other; dependsOn is read in the dependency's
 * cluster.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClusters } from '../../src/cluster/index.js';
import type { HttpKubeClient } from '../../src/kube/index.js';
import { startRepoHarness, type CliRun, type RepoHarness } from '../helpers/agent-harness.js';
import { API, instance } from '../sync/fixtures.js';

let h: RepoHarness;
let repo: string;
let own: HttpKubeClient;
let edge: HttpKubeClient;

const write = (path: string, text: string): void => h.user.write(path, text);

beforeAll(async () => {
  h = await startRepoHarness({
    clusters: 2,
    files: {
      'baton.yaml': [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', ''].join('\n'),
      'instances/shop/far.yaml': `${instance({ VALUE: 'far' })}cluster: edge\n`,
      'instances/shop/home.yaml': instance({ VALUE: 'home' }),
      'instances/shop/chosen.yaml': instance({ VALUE: 'chosen' }),
      'instances/shop/typo.yaml': `${instance({ VALUE: 'typo' })}cluster: edgy\n`,
      'instances/shop/after.yaml': `${instance({ VALUE: 'after' })}dependsOn: [{ name: far }]\n`,
    },
  });
  repo = h.user.dir;
  own = await h.clientOf('baton-sim-1');
  edge = await h.clientOf('baton-sim-2');
});
afterAll(() => h.stop());

const baton = (...args: string[]): Promise<CliRun> => h.baton([...args, '--kubeconfig', h.kubeconfigPath], repo);
const configMaps = async (client: HttpKubeClient): Promise<string[]> => (await client.list('v1', 'ConfigMap', 'shop').catch(() => ({ items: [] }))).items.map((o) => o.metadata.name ?? '').sort();

describe('baton apply takes the instance to its target cluster', () => {
  it('GIVEN an instance with cluster: edge WHEN applied with the own kubeconfig THEN its objects and checkpoint are in edge only, and the output names the target', async () => {
    const io = await baton('apply', 'instances/shop/far.yaml');
    expect(io.err).toBe('');
    expect(io.code).toBe(0);
    expect(io.out).toContain(`target: cluster edge (context baton-sim-2, server ${h.clusters[1]!.url.replace(/\/$/, '')})`);
    expect(await configMaps(edge)).toEqual(expect.arrayContaining(['baton-checkpoint-far', 'far']));
    expect(await configMaps(own)).not.toContain('far');
    expect(await configMaps(own)).not.toContain('baton-checkpoint-far');
  });

  it('GIVEN an instance without cluster: THEN it goes to the own cluster (--kubeconfig/--context) as before', async () => {
    const io = await baton('apply', 'instances/shop/home.yaml', '--context', 'baton-sim-1');
    expect(io.code).toBe(0);
    expect(io.out).not.toContain('target:');
    expect(await configMaps(own)).toEqual(expect.arrayContaining(['baton-checkpoint-home', 'home']));
    expect(await configMaps(edge)).not.toContain('home');
  });

  it('GIVEN --cluster edge for an instance that names none THEN it goes to edge, and -o json names it', async () => {
    const io = await baton('apply', 'instances/shop/chosen.yaml', '--cluster', 'edge', '-o', 'json');
    expect(io.code).toBe(0);
    expect((JSON.parse(io.out) as { cluster?: unknown }).cluster).toEqual({ name: 'edge', context: 'baton-sim-2', server: h.clusters[1]!.url.replace(/\/$/, '') });
    expect(await configMaps(edge)).toContain('chosen');
    expect(await configMaps(own)).not.toContain('chosen');
  });

  it.each([
    ['--cluster contradicting the file', 'instances/shop/far.yaml', ['--cluster', 'lab'], 2, '--cluster lab: instances/shop/far.yaml says cluster: edge, where the agent applies it; drop --cluster (or pass --cluster edge)'],
    ['--cluster naming no declared cluster', 'instances/shop/home.yaml', ['--cluster', 'lab'], 2, '--cluster lab: baton.yaml declares clusters edge; expected one of them'],
    ['a file naming an undeclared cluster', 'instances/shop/typo.yaml', [], 1, 'instances/shop/typo.yaml:7:10: error CLUSTER_UNKNOWN: cluster "edgy" is not declared in baton.yaml'],
  ])('GIVEN %s THEN nothing is applied anywhere, with a clear error and its exit code', async (_name, file, flags, code, message) => {
    const before = [await configMaps(own), await configMaps(edge)];
    const io = await baton('apply', file, ...flags);
    expect(io.code).toBe(code);
    expect(io.err).toContain(message);
    expect([await configMaps(own), await configMaps(edge)]).toEqual(before);
  });

  it('GIVEN an instance on the own cluster that dependsOn one on edge THEN the dependency is read in edge (applied there: the apply goes on)', async () => {
    const io = await baton('apply', 'instances/shop/after.yaml', '--context', 'baton-sim-1');
    expect(io.err).toBe('');
    expect(io.code).toBe(0);
    expect(await configMaps(own)).toContain('after');
  });

  it('GIVEN edge stopped THEN apply of an instance on it fails naming the cluster, kubeconfig, context and server', async () => {
    const down = await startClusters(1, { controllers: false });
    const url = down.clusters[0]!.url.replace(/\/$/, '');
    await down.stop();
    write('unreachable.kubeconfig', `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${url}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: gone, context: {cluster: c, user: u}}]\ncurrent-context: gone\n`);
    write('baton.yaml', [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', `  - { name: gone, kubeconfig: ${join(repo, 'unreachable.kubeconfig')} }`, ''].join('\n'));
    write('instances/shop/lost.yaml', `${instance({ VALUE: 'lost' })}cluster: gone\n`);
    const io = await baton('apply', 'instances/shop/lost.yaml');
    expect(io.code).toBe(1);
    expect(io.err).toContain(`error: cluster "gone" cannot be reached (kubeconfig ${join(repo, 'unreachable.kubeconfig')}, server ${url})`);
  });

  it('GIVEN baton delete of the instance on edge THEN it is removed from edge, and the own cluster is untouched', async () => {
    const ownBefore = await configMaps(own);
    const io = await baton('delete', 'instances/shop/chosen.yaml', '--cluster', 'edge');
    expect(io.code).toBe(0);
    expect(await configMaps(edge)).not.toContain('chosen');
    expect(await configMaps(edge)).not.toContain('baton-checkpoint-chosen');
    expect(await configMaps(own)).toEqual(ownBefore);
  });
});
