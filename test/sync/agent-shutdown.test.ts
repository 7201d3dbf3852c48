/**
 * Stopping the agent: work still waiting for a worker slot is dropped without a trace (no plan is
 * started only to be superseded), and status files stay bounded in size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import { buildStatus, STATUS_MAX_MESSAGE, STATUS_MAX_PROBLEMS } from '../../src/sync/status-file.js';
import { testAgent, mirrorOf, agentWorld, instance, type AgentWorld } from './fixtures.js';

describe('stopping the agent', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const name of ['one', 'two', 'three']) world.user.write(`instances/shop/${name}.yaml`, instance({ VALUE: name }));
    world.user.commit('three instances');
    await world.user.push();
  });
  afterAll(async () => {
    await renderer.close();
    client.close();
    await world.stop();
  });

  it('GIVEN instances queued behind a busy worker WHEN the agent stops THEN they are dropped: no plan started, no status written', async () => {
    const agent = testAgent(mirrorOf(world), client, renderer, { concurrency: 1 });
    await agent.start();
    await agent.pass({ wait: false });
    expect(agent.queueDepth).toBeGreaterThan(0);
    await agent.stop();
    await world.user.pull();
    const statusFiles = world.user.git('ls-tree', '--name-only', 'HEAD', 'status/shop/').split('\n').filter((l) => l !== '');
    // Only the instance that had a worker when the stop came was started.
    expect(statusFiles.length).toBeLessThanOrEqual(1);
    expect(world.user.git('log', '--format=%s')).not.toMatch(/shop\/(two|three): deploy/);
  });

  it('GIVEN a stopped agent WHEN a pass still comes (a late poll or SIGTERM during --once) THEN nothing new starts', async () => {
    const agent = testAgent(mirrorOf(world, 'agent-2'), client, renderer);
    await agent.start();
    await agent.stop();
    const report = await agent.pass();
    expect(report.reports.length).toBeGreaterThan(0);
    expect(new Set(report.reports.map((r) => r.outcome.kind))).toEqual(new Set(['nothing']));
  });
});

describe('status file size', () => {
  it('GIVEN a refusal with many long problems WHEN the status is built THEN problems and messages are capped and say so', () => {
    const problems = Array.from({ length: 50 }, (_, i) => `instances/shop/x.yaml:${i}:1: PARAM_TYPE: ${'y'.repeat(3000)}`);
    const status = buildStatus({
      instance: { namespace: 'shop', name: 'x' }, framework: { name: 'web' }, sourceCommit: 'c', observed: { instance: 'i' }, now: 't',
      refusal: { code: 'INVALID_CONTENT', message: 'z'.repeat(5000), at: 't', problems },
    });
    expect(status.refusal?.problems).toHaveLength(STATUS_MAX_PROBLEMS + 1);
    expect(status.refusal?.problems?.at(-1)).toBe('... and 30 more problems (run baton validate)');
    expect(status.refusal?.problems?.[0]?.length).toBeLessThan(STATUS_MAX_MESSAGE + 50);
    expect(status.refusal?.message).toMatch(/\.\.\. \(3000 more characters\)$/);
  });
});
