/**
 * `baton preview --kubeconfig`: the difference against the live cluster through a server-side dry-run
 * apply, on the simulated cluster over HTTP. The dry run must persist nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/index.js';
import { Renderer } from '../../src/render/index.js';
import { treesAt } from '../../src/preview/git-trees.js';
import { buildPreview } from '../../src/preview/preview.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { FixtureRepo } from './fixture-repo.js';

let cluster: TestCluster;
let client: HttpKubeClient;
let renderer: Renderer;
let repo: FixtureRepo;

beforeAll(async () => {
  cluster = await startTestCluster();
  client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  renderer = new Renderer();
  repo = new FixtureRepo();
});
afterAll(async () => {
  client.close();
  await renderer.close();
  await cluster.stop();
  repo.cleanup();
});

describe('baton preview against a live cluster', () => {
  it('shows objects that do not exist yet, and a live diff for an object that differs, persisting nothing', async () => {
    // GIVEN an instance whose ConfigMap exists in the cluster with an older value (edited by hand)
    repo.instance('prod', 'cache', '1.0.0', { PASSWORD: 'pw-123456', MAXMEMORY: '64mb' });
    const base = repo.commit('base');
    repo.instance('prod', 'cache', '1.0.0', { PASSWORD: 'pw-123456', MAXMEMORY: '96mb' });
    const head = repo.commit('more memory');
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod' } });
    await client.apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cache-config', namespace: 'prod' }, data: { maxmemory: '32mb', bucket: 'backups' } },
      { fieldManager: 'baton' },
    );
    const before = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cache-config', namespace: 'prod' });

    // WHEN the change is previewed with the live cluster
    const trees = await treesAt(repo.dir, base, head);
    const report = await buildPreview({ base: trees.base, head: trees.head, baseRef: 'main', headRef: 'change', renderer, now: new Date(), live: client });

    // THEN the live section shows the hand-edited value being replaced, and the rest as new
    const inst = report.instances[0];
    if (inst?.outcome !== 'run') throw new Error(`expected a run, got ${JSON.stringify(inst)}`);
    const live = inst.live ?? [];
    const config = live.find((c) => c.ref.name === 'cache-config');
    expect(config?.change).toBe('update');
    expect(config?.change === 'update' && config.diff).toMatch(/-\s+maxmemory: 32mb\n\+\s+maxmemory: 96mb/);
    expect(live.find((c) => c.ref.kind === 'StatefulSet')?.change).toBe('create');
    expect(live.find((c) => c.ref.kind === 'Secret')?.change).toBe('create');
    expect(JSON.stringify(report)).not.toContain('pw-123456');
    // AND the dry run persisted nothing
    const after = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cache-config', namespace: 'prod' });
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(after?.data).toEqual({ maxmemory: '32mb', bucket: 'backups' });
  });
});
