/**
 * Issue 14: unchanged inputs are never rendered twice by the agent. GIVEN deployed instances WHEN the agent
 * polls again with nothing changed (or only a file no instance reads) THEN the sandbox renders nothing; WHEN one instance's values change THEN
 * only that instance renders again; an instance run loads its framework through the agent's one cache
 * (no module-wide cache beside it).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Agent } from '../../src/sync/agent.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, type AgentWorld, outcomeKinds } from './fixtures.js';

describe('the agent renders unchanged inputs once', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let agent: Agent;
  /** Instances whose plans went to the sandbox, one entry per sandbox job. */
  const rendered: string[] = [];

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { 'instances/shop/site.yaml': instance({ VALUE: 'one' }), 'instances/shop/blog.yaml': instance() },
      message: 'two web instances',
    });
    ({ world, agent } = h);
    const run = h.renderer.runDeferred.bind(h.renderer);
    vi.spyOn(h.renderer, 'runDeferred').mockImplementation((job) => {
      rendered.push(job.base.instance.name);
      return run(job);
    });
  });
  afterAll(() => h.stop());


  it('GIVEN both deployed WHEN the agent polls twice more with nothing changed THEN nothing is rendered again', async () => {
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'complete', 'shop/blog': 'complete' });
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
    expect(outcomeKinds(await agent.pass())).toMatchObject({ 'shop/site': 'complete' });
    expect(rendered.slice(before).length).toBeGreaterThan(0);
    expect(new Set(rendered.slice(before))).toEqual(new Set(['site']));
  });

  it('GIVEN the framework unchanged WHEN an instance runs again THEN its loads and renders go through the agent\'s one framework cache and nothing is parsed again', async () => {
    const cache = agent.frameworkCache;
    const loads = cache.loads;
    const load = vi.spyOn(cache, 'load');
    try {
      await world.user.pull();
      world.user.write('instances/shop/blog.yaml', instance({ VALUE: 'three' }));
      world.user.commit('blog: new value');
      await world.user.push();
      expect(outcomeKinds(await agent.pass())).toMatchObject({ 'shop/blog': 'complete' });
      // The render path asks without a tree id (the pod pass hands the scan's): it asked this cache.
      expect(load.mock.calls.filter((args) => args[3] === undefined).length).toBeGreaterThan(0);
      expect(cache.loads).toBe(loads);
      expect(cache.size).toBe(1);
    } finally {
      load.mockRestore();
    }
  });
});
