/**
 * `baton preview` names each instance's target cluster (docs/clusters.md): the baton.yaml name, its
 * kubeconfig source and context, and the server when a kubeconfig here says it (no request made); the
 * agent's own cluster when the instance names none. A change of `cluster:` is shown as the refusal the
 * agent would write (CLUSTER_MOVE). With --kubeconfig, the live comparison runs in the instance's own
 * target cluster: two simulated clusters, an object present in one only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startClusters, type ClusterSet } from '../../src/cluster/index.js';
import { createKubeClient } from '../../src/kube/index.js';
import type { PreviewReport } from '../../src/preview/types.js';
import { FixtureRepo } from './fixture-repo.js';

function captureIO(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t) };
  return io;
}

const BATON_YAML = [
  'apiVersion: baton.dev/v1alpha1',
  'kind: Repository',
  'clusters:',
  '  - { name: edge, context: baton-sim-2 }',
  '  - { name: vault, secret: { namespace: baton-system, name: vault-kubeconfig } }',
  '',
].join('\n');

let set: ClusterSet;
let repo: FixtureRepo;
const params = { PASSWORD: 'pw-0000', REPLICAS: 1 };

beforeAll(async () => {
  set = await startClusters(2, { controllers: false });
  repo = new FixtureRepo();
  repo.write('baton.yaml', BATON_YAML);
  repo.instance('prod', 'home', '1.0.0', params);
  repo.instance('prod', 'far', '1.0.0', params);
  repo.write('instances/prod/far.yaml', `${readInstance('far')}cluster: edge\n`);
  repo.commit('base');
  repo.instance('prod', 'home', '1.0.0', { ...params, REPLICAS: 2 });
  repo.write('instances/prod/home.yaml', `${readInstance('home')}cluster: edge\n`);
  repo.instance('prod', 'far', '1.0.0', { ...params, REPLICAS: 2 });
  repo.write('instances/prod/far.yaml', `${readInstance('far')}cluster: edge\n`);
  repo.instance('prod', 'own', '1.0.0', params);
  repo.instance('prod', 'safe', '1.0.0', params);
  repo.write('instances/prod/safe.yaml', `${readInstance('safe')}cluster: vault\n`);
  repo.commit('head');
});
afterAll(async () => {
  await set.stop();
  repo.cleanup();
});

function readInstance(name: string): string {
  return readFileSync(join(repo.dir, 'instances/prod', `${name}.yaml`), 'utf8');
}

async function preview(format: string, extra: string[] = []): Promise<CliIO & { out: string; err: string }> {
  const io = captureIO(repo.dir);
  await main(['node', 'baton', 'preview', '--base', 'HEAD~1', '--head', 'HEAD', '-o', format, ...extra], io);
  return io;
}

describe('baton preview names the target cluster', () => {
  it('GIVEN instances on baton.yaml clusters and on the own cluster THEN JSON names each target, and a move is refused as CLUSTER_MOVE', async () => {
    const io = await preview('json');
    expect(io.exitCode).toBe(1);
    const report = JSON.parse(io.out) as PreviewReport;
    const byName = new Map(report.instances.map((i) => [i.instance.name, i]));
    expect(byName.get('far')?.outcome).toBe('run');
    expect(byName.get('far')?.cluster).toEqual({ name: 'edge', context: 'baton-sim-2' });
    expect(byName.get('own')?.cluster).toEqual({});
    expect(byName.get('safe')?.cluster).toEqual({ name: 'vault', secret: 'baton-system/vault-kubeconfig key kubeconfig' });
    const home = byName.get('home');
    expect(home?.outcome).toBe('refused');
    expect(home?.outcome === 'refused' && home.code).toBe('CLUSTER_MOVE');
    expect(home?.outcome === 'refused' && home.message).toMatch(/^instances\/prod\/home\.yaml:\d+: the instance's objects are in cluster "own"; moving it to "edge" is not done in place/);
    expect(home?.cluster.name).toBe('edge');
    expect(home?.clusterFrom).toEqual({});
    expect(report.acceptable).toBe(false);
  });

  it('GIVEN --kubeconfig THEN servers are shown from it (the own cluster by its current context, edge by its context), without a Secret being read', async () => {
    const io = await preview('text', ['--kubeconfig', set.kubeconfigPath]);
    const [one, two] = set.clusters.map((c) => c.url.replace(/\/$/, ''));
    expect(io.out).toContain(`prod/far: runs update`);
    expect(io.out).toContain(`  target: cluster edge (context baton-sim-2, server ${two})`);
    expect(io.out).toContain(`  target: the agent's own cluster (server ${one})`);
    expect(io.out).toContain('  target: cluster vault (kubeconfig in Secret baton-system/vault-kubeconfig key kubeconfig)');
    expect(io.out).toMatch(/prod\/home: refused \(instances\/prod\/home\.yaml:\d+: the instance's objects are in cluster "own"; moving it to "edge"/);
    expect(io.out).toContain(`  target: cluster edge (context baton-sim-2, server ${two}), moved from the agent's own cluster (server ${one}) (refused: CLUSTER_MOVE)`);
  });

  it('GIVEN Markdown (the PR comment) THEN the summary table has a Cluster column and each section its target', async () => {
    const io = await preview('markdown');
    expect(io.out).toContain('| Instance | Cluster | Outcome | Why |');
    expect(io.out).toMatch(/\| `prod\/far` \| edge \| runs `update` \|/);
    expect(io.out).toMatch(/\| `prod\/home` \| own → edge \| ❌ refused \|/);
    expect(io.out).toMatch(/\| `prod\/own` \| own \| runs `deploy` \|/);
    expect(io.out).toContain('Target: cluster edge (context baton-sim-2)');
  });

  it('GIVEN --kubeconfig THEN the live comparison of an instance on edge reads edge, not the own cluster', async () => {
    // far's ConfigMap exists in edge (baton-sim-2) only; the own cluster (baton-sim-1) has none.
    const edge = await createKubeClient({ kubeconfigPath: set.kubeconfigPath, context: 'baton-sim-2' });
    try {
      await edge.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
      await edge.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'far-config', namespace: 'prod' }, data: { maxmemory: '32mb' } }, { fieldManager: 'baton' });
    } finally {
      edge.close();
    }
    const io = await preview('json', ['--kubeconfig', set.kubeconfigPath]);
    const report = JSON.parse(io.out) as PreviewReport;
    const far = report.instances.find((i) => i.instance.name === 'far');
    if (far?.outcome !== 'run') throw new Error(`expected a run: ${io.out}${io.err}`);
    expect(far.live?.find((c) => c.ref.name === 'far-config')?.change).toBe('update');
    const own = report.instances.find((i) => i.instance.name === 'own');
    if (own?.outcome !== 'run') throw new Error('expected a run');
    expect(own.live?.find((c) => c.ref.name === 'own-config')?.change).toBe('create');
  });
});

describe('baton preview with a bad baton.yaml clusters entry', () => {
  it('GIVEN a cluster with both kubeconfig and secret THEN the instance is refused with the located baton.yaml error, not an unknown cluster', async () => {
    const bad = new FixtureRepo();
    try {
      bad.write('baton.yaml', ['apiVersion: baton.dev/v1alpha1', 'kind: Repository', 'clusters:', '  - name: edge', '    kubeconfig: /etc/baton/edge.kubeconfig', '    secret: { namespace: baton-system, name: edge }', ''].join('\n'));
      bad.commit('base');
      bad.instance('prod', 'far', '1.0.0', params);
      bad.write('instances/prod/far.yaml', `${readFileSync(join(bad.dir, 'instances/prod/far.yaml'), 'utf8')}cluster: edge\n`);
      bad.commit('head');
      const io = captureIO(bad.dir);
      expect(await main(['node', 'baton', 'preview', '--base', 'HEAD~1', '--head', 'HEAD', '-o', 'json'], io)).toBe(1);
      const far = (JSON.parse(io.out) as PreviewReport).instances.find((i) => i.instance.name === 'far');
      expect(far?.outcome).toBe('refused');
      expect(far?.outcome === 'refused' && far.code).toBe('SCHEMA_VALUE');
      expect(far?.outcome === 'refused' && far.message).toContain('baton.yaml:6: "clusters.0.secret": `secret` and `kubeconfig` are two sources of the kubeconfig: give one');
      expect(io.out).not.toContain('CLUSTER_UNKNOWN');
    } finally {
      bad.cleanup();
    }
  });
});
