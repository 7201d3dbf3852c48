/**
 * Decommission on scale-down end to end (issue #13): the catalog Redis (decommission volumes: delete)
 * deployed by the agent with two replicas; REPLICAS lowered to 1 in Git; once the scale-down completed
 * the removed replica's claim is deleted as a recorded `decommission` run, the other claims stay.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackingRef } from '../../src/git/mirror.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { readHistory } from '../../src/sync/history.js';
import { agentWorld, mirrorOf, testAgent, type AgentWorld, outcomeLines } from '../sync/fixtures.js';

const REDIS = join(import.meta.dirname, '../../frameworks/redis/1.1.0');
const instance = (replicas: number): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: redis\nversion: 1.1.0\nparams: { REPLICAS: ${replicas} }\n`;

describe('decommission: a Redis scale-down', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let agent: Agent;

  beforeAll(async () => {
    world = await agentWorld({ controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, nodes: 3 });
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else world.user.write(`frameworks/redis/1.1.0/${relative(REDIS, path)}`, readFileSync(path, 'utf8'));
      }
    };
    walk(REDIS);
    world.user.write('instances/data/cache.yaml', instance(2));
    world.user.commit('redis with two replicas');
    await world.user.push();
    agent = testAgent(mirrorOf(world), client, renderer, { podCheckIntervalMs: 0, coalesceMs: 10 });
    await agent.start();
    expect((await agent.pass()).reports.map((r) => `${r.instance} ${r.outcome.kind}`)).toEqual(['data/cache complete']);
  }, 60_000);
  afterAll(async () => {
    await agent.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const claims = async (): Promise<string[]> => (await client.list('v1', 'PersistentVolumeClaim', 'data')).items.filter((c) => c.metadata.deletionTimestamp === undefined).map((c) => c.metadata.name ?? '').sort();

  it('GIVEN REPLICAS lowered from 2 to 1 WHEN the update completes THEN data-cache-replica-1 is deleted as a recorded decommission run; the others stay', async () => {
    expect(await claims()).toEqual(expect.arrayContaining(['data-cache-primary-0', 'data-cache-replica-0', 'data-cache-replica-1']));
    await world.user.pull();
    world.user.write('instances/data/cache.yaml', instance(1));
    world.user.commit('one replica');
    await world.user.push();
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    while (!seen.includes('data/cache complete decommission')) {
      seen.push(...outcomeLines(await agent.pass()));
      if (Date.now() > deadline) throw new Error(`no decommission; passes: ${seen.join(', ')}`);
    }
    expect(seen[0]).toBe('data/cache complete update');
    expect(await claims()).not.toContain('data-cache-replica-1');
    expect(await claims()).toEqual(expect.arrayContaining(['data-cache-primary-0', 'data-cache-replica-0']));
    const reader = mirrorOf(world, 'reader');
    await reader.init();
    await reader.fetch('main');
    const runs = (await readHistory(reader, { ref: trackingRef('main'), instance: 'data/cache' })).filter((h) => h.plan === 'decommission');
    expect(runs.map((h) => [h.event, h.pods, h.requestedBy]).reverse()).toEqual([['plan-started', ['cache-replica-1'], 'decommission'], ['plan-complete', ['cache-replica-1'], 'decommission']]);
    // Done once: the next pass does nothing.
    expect(outcomeLines(await agent.pass())).toEqual([]);
  }, 60_000);
});
