/**
 * The agent over a framework's lifecycle, end to end against a Git repository and the simulated
 * cluster: a version bump runs `upgrade`, a change to the files of a published version runs `update`
 * on every instance on it (and says so), and `baton agent --once` exits 1 for a failed plan and for
 * bad content while the other instances proceed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent, PassReport } from '../../src/sync/agent.js';
import { parseStatus } from '../../src/sync/status-file.js';
import { runBaton, startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { agentWorld, instance, webFramework, type AgentWorld } from './fixtures.js';

const UPDATE_AND_UPGRADE = [
  '  update:',
  '    phases:',
  '      - name: main',
  '        steps:',
  '          - { name: main, tasks: [main] }',
  '  upgrade:',
  '    phases:',
  '      - name: migrate',
  '        steps:',
  '          - { name: main, tasks: [main] }',
].join('\n');

describe('the agent over a framework lifecycle', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { ...webFramework('1.0.0', UPDATE_AND_UPGRADE), 'instances/shop/a.yaml': instance({ VALUE: 'a' }), 'instances/shop/b.yaml': instance({ VALUE: 'b' }) },
      message: 'two instances on web 1.0.0',
    });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const plans = (r: PassReport): Record<string, string> => Object.fromEntries(r.reports.map((x) => [x.instance, x.outcome.kind === 'complete' ? `${x.outcome.plan} complete` : x.outcome.kind]));
  const statusOf = async (name: string): Promise<ReturnType<typeof parseStatus>> => {
    await world.user.pull();
    return parseStatus(world.user.git('show', `HEAD:status/shop/${name}.yaml`), name);
  };

  it('GIVEN two new instances WHEN polled THEN both deploy', async () => {
    expect(plans(await agent.pass())).toEqual({ 'shop/a': 'deploy complete', 'shop/b': 'deploy complete' });
  });

  it('GIVEN the files of the published version edited WHEN polled THEN every instance on it runs update, and the reason says why', async () => {
    await world.user.pull();
    world.user.write('frameworks/web/1.0.0/templates/main.yaml.ejs', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata:\n  value: <%= params.VALUE %>\n  edited: "yes"\n');
    world.user.commit('edit web 1.0.0 in place');
    await world.user.push();
    const report = await agent.pass();
    expect(plans(report)).toEqual({ 'shop/a': 'update complete', 'shop/b': 'update complete' });
    expect(report.reports.map((r) => r.reason)).toEqual([expect.stringContaining('framework files changed'), expect.stringContaining('framework files changed')]);
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a' }))?.['data']).toMatchObject({ edited: 'yes' });
  });

  it('GIVEN one instance bumped to a new framework version WHEN polled THEN it runs upgrade and the other is untouched', async () => {
    await world.user.pull();
    for (const [path, text] of Object.entries(webFramework('1.1.0', UPDATE_AND_UPGRADE))) world.user.write(path, text);
    world.user.write('instances/shop/a.yaml', instance({ VALUE: 'a' }, '1.1.0'));
    world.user.commit('a to web 1.1.0');
    await world.user.push();
    expect(plans(await agent.pass())).toEqual({ 'shop/a': 'upgrade complete' });
    expect(await statusOf('a')).toMatchObject({ state: 'COMPLETE', framework: { version: '1.1.0' }, currentPlan: { plan: 'upgrade' } });
    expect(await statusOf('b')).toMatchObject({ framework: { version: '1.0.0' }, currentPlan: { plan: 'update' } });
  });
});

describe('baton agent --once exit codes', () => {
  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    world.user.write('instances/shop/good.yaml', instance({ VALUE: 'fine' }));
    world.user.write('instances/shop/bad.yaml', instance({ REPLICAS: 0 }));
    world.user.commit('one good, one bad');
    await world.user.push();
  });
  afterAll(async () => {
    await world.stop();
  });

  it('GIVEN bad content in one instance WHEN --once runs THEN the other deploys, the bad one is reported refused, and it exits 1', async () => {
    const run = await runBaton(['agent', '--git', world.origin, '--once', '--no-events', '--kubeconfig', world.cluster.kubeconfigPath, '--data-dir', join(world.sandbox.dir, 'once-data')], world.sandbox.dir);
    expect(run.out).toContain('shop/good: deploy COMPLETE');
    expect(run.out).toMatch(/shop\/bad: refused: .*PARAM_MINIMUM/);
    expect(run.code).toBe(1);
  });
});
