/**
 * Issue 14: unchanged inputs are never rendered twice by the agent. GIVEN deployed instances WHEN the agent
 * polls again with nothing changed (or only a file no instance reads) THEN the sandbox renders nothing; WHEN one instance's values change THEN
 * only that instance renders again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent, PassReport } from '../../src/sync/agent.js';
import { testAgent, mirrorOf, agentWorld, instance, type AgentWorld } from './fixtures.js';

describe('the agent renders unchanged inputs once', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let agent: Agent;
  /** Instances whose plans went to the sandbox, one entry per sandbox job. */
  const rendered: string[] = [];

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    const run = renderer.run.bind(renderer);
    vi.spyOn(renderer, 'run').mockImplementation((job) => {
      rendered.push(job.base.instance.name);
      return run(job);
    });
    world.user.write('instances/shop/site.yaml', instance({ VALUE: 'one' }));
    world.user.write('instances/shop/blog.yaml', instance());
    world.user.commit('two web instances');
    await world.user.push();
    agent = testAgent(mirrorOf(world), client, renderer);
    await agent.start();
  });
  afterAll(async () => {
    await agent.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const outcomes = (r: PassReport): Record<string, string> => Object.fromEntries(r.reports.map((x) => [x.instance, x.outcome.kind]));

  it('GIVEN both deployed WHEN the agent polls twice more with nothing changed THEN nothing is rendered again', async () => {
    expect(outcomes(await agent.pass())).toEqual({ 'shop/site': 'complete', 'shop/blog': 'complete' });
    expect(new Set(rendered)).toEqual(new Set(['site', 'blog']));
    const afterDeploy = rendered.length;
    await agent.pass();
    // A commit that changes none of the instances' inputs.
    await world.user.pull();
    world.user.write('README.md', 'notes\n');
    world.user.commit('notes');
    await world.user.push();
    await agent.pass();
    expect(rendered.length).toBe(afterDeploy);
  });

  it('GIVEN one instance\'s values change WHEN the agent polls THEN only that instance renders again', async () => {
    const before = rendered.length;
    await world.user.pull();
    world.user.write('instances/shop/site.yaml', instance({ VALUE: 'two' }));
    world.user.commit('site: new value');
    await world.user.push();
    expect(outcomes(await agent.pass())).toMatchObject({ 'shop/site': 'complete' });
    expect(rendered.slice(before).length).toBeGreaterThan(0);
    expect(new Set(rendered.slice(before))).toEqual(new Set(['site']));
  });
});
