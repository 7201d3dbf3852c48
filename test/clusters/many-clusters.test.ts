/**
 * Many clusters end to end (issue #20 item 2, docs/clusters.md): one repository, two simulated
 * clusters in one kubeconfig (the harness's `clusters: 2`, contexts named as `baton cluster start --clusters 2`
 * names them), `baton agent --once` with the
 * first as its own cluster and the second named in baton.yaml by context. Each instance's objects,
 * checkpoint and Events land in its target cluster only (kubectl against each cluster); an unknown
 * cluster name is refused, located, changing nothing; with the second cluster stopped, instances on the
 * first still complete and the status of those on the second names it, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { startRepoHarness, type CliRun, type RepoHarness } from '../helpers/agent-harness.js';
import type { WorkClone } from '../helpers/git-server.js';
import { API, instance } from '../sync/fixtures.js';

describe('one agent, two clusters: each instance in its target cluster', () => {
  let h: RepoHarness;
  let user: WorkClone;

  beforeAll(async () => {
    h = await startRepoHarness({
      clusters: 2,
      files: {
        'baton.yaml': [API, 'kind: Repository', 'clusters:', '  - { name: edge, context: baton-sim-2 }', ''].join('\n'),
        'instances/shop/home.yaml': instance({ VALUE: 'home' }),
        'instances/shop/far.yaml': `${instance({ VALUE: 'far' })}cluster: edge\n`,
        'instances/lab/typo.yaml': `${instance({ VALUE: 'typo' })}cluster: edgy\n`,
      },
      message: 'instances on two clusters',
    });
    user = h.user;
  });
  afterAll(() => h.stop());

  const agentOnce = (): Promise<CliRun> => h.agentOnce();
  const kubectl = async (context: string, args: string[]): Promise<string> => {
    const r = await h.kubectl(args, context);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\n${r.stderr}`);
    return r.stdout;
  };
  const names = async (context: string, kind: string, ns: string): Promise<string[]> => (await kubectl(context, ['get', kind, '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter((n) => n !== '').sort();
  const status = async (ns: string, name: string): Promise<InstanceStatus> => {
    const found = await h.statusOf(`${ns}/${name}`);
    if (found === undefined) throw new Error(`no status of ${ns}/${name} in Git`);
    return found;
  };

  it('GIVEN baton.yaml naming cluster edge WHEN the agent runs THEN each instance is deployed to its own cluster, with checkpoint and Events there', async () => {
    const io = await agentOnce();
    expect(io.out).toContain('shop/home: deploy COMPLETE (new instance)');
    expect(io.out).toContain('shop/far: deploy COMPLETE (new instance)');
    // The agent's own cluster holds home only; edge holds far only.
    expect(await names('baton-sim-1', 'configmaps', 'shop')).toEqual(expect.arrayContaining(['baton-checkpoint-home', 'home']));
    expect(await names('baton-sim-1', 'configmaps', 'shop')).not.toContain('far');
    expect(await names('baton-sim-1', 'configmaps', 'shop')).not.toContain('baton-checkpoint-far');
    expect(await names('baton-sim-2', 'configmaps', 'shop')).toEqual(expect.arrayContaining(['baton-checkpoint-far', 'far']));
    expect(await names('baton-sim-2', 'configmaps', 'shop')).not.toContain('home');
    expect(await names('baton-sim-2', 'configmaps', 'shop')).not.toContain('baton-checkpoint-home');
    const farEvents = await kubectl('baton-sim-2', ['get', 'events', '-n', 'shop', '--field-selector', 'involvedObject.name=baton-checkpoint-far', '-o', 'jsonpath={.items[*].reason}']);
    expect(farEvents.split(' ')).toEqual(expect.arrayContaining(['PlanStarted', 'PlanComplete']));
    expect(await kubectl('baton-sim-1', ['get', 'events', '-n', 'shop', '--field-selector', 'involvedObject.name=baton-checkpoint-far', '-o', 'name'])).toBe('');
    // Status names the target cluster of an instance that has one.
    expect((await status('shop', 'far')).cluster).toEqual({ name: 'edge', server: h.clusters[1]!.url.replace(/\/$/, '') });
    expect((await status('shop', 'home')).cluster).toBeUndefined();
  });

  it('GIVEN an instance naming a cluster baton.yaml does not declare THEN it is refused, located, and nothing is created anywhere', async () => {
    const typo = await status('lab', 'typo');
    expect(typo.state).toBe('REFUSED');
    expect(typo.refusal?.message).toMatch(/^instances\/lab\/typo\.yaml:7:10: CLUSTER_UNKNOWN: cluster "edgy" is not declared in baton\.yaml; expected one of baton\.yaml clusters: edge/);
    for (const context of ['baton-sim-1', 'baton-sim-2']) expect(await names(context, 'configmaps', 'lab')).not.toContain('typo');
  });

  it('GIVEN an instance moved to another cluster THEN the move is refused and its objects stay where they are', async () => {
    await user.pull();
    user.write('instances/shop/home.yaml', `${instance({ VALUE: 'home' })}cluster: edge\n`);
    user.commit('move home to edge');
    await user.push();
    const io = await agentOnce();
    expect(io.out).toMatch(/shop\/home: refused: .*CLUSTER_MOVE: the instance's objects are in cluster "own"; moving it to "edge"/);
    expect(await names('baton-sim-1', 'configmaps', 'shop')).toContain('home');
    expect(await names('baton-sim-2', 'configmaps', 'shop')).not.toContain('home');
    await user.pull();
    user.write('instances/shop/home.yaml', instance({ VALUE: 'home' }));
    user.commit('keep home where it is');
    await user.push();
    expect((await agentOnce()).out).not.toContain('shop/home: refused');
  });

  it('GIVEN cluster edge stopped WHEN the agent runs THEN instances on its own cluster complete and the status of those on edge names edge, once', async () => {
    await h.clusters[1]!.stop();
    await user.pull();
    user.write('instances/shop/near.yaml', instance({ VALUE: 'near' }));
    user.write('instances/shop/farther.yaml', `${instance({ VALUE: 'farther' })}cluster: edge\n`);
    user.commit('one more on each cluster');
    await user.push();
    const io = await agentOnce();
    expect(io.out).toContain('shop/near: deploy COMPLETE (new instance)');
    expect(io.out).toMatch(/shop\/farther: error: cluster "edge" cannot be reached \(the agent's kubeconfig [^,]+, context baton-sim-2, server http:\/\/127\.0\.0\.1:\d+\): .*ECONNREFUSED.*; try: is the cluster running/);
    expect(io.code).toBe(1);
    expect(await names('baton-sim-1', 'configmaps', 'shop')).toContain('near');
    const farther = await status('shop', 'farther');
    expect(farther.cluster?.name).toBe('edge');
    expect(farther.cluster?.unreachable?.code).toBe('CLUSTER_UNREACHABLE');
    expect(farther.cluster?.unreachable?.message).toContain('cluster "edge" cannot be reached');
    expect(farther.state).toBe('PENDING');
    // Another pass failing the same way writes nothing more: the status does not flap.
    const commits = (): number => Number(user.git('rev-list', '--count', 'HEAD', '--', 'status/shop/farther.yaml'));
    const before = commits();
    await agentOnce();
    await user.pull();
    expect(commits()).toBe(before);
    expect(await names('baton-sim-1', 'configmaps', 'shop')).toEqual(expect.arrayContaining(['home', 'near']));
  });
});
