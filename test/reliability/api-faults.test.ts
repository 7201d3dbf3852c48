/**
 * API fault profiles: the simulated API server misbehaves in one way at a time (errors on a share of
 * writes or reads, throttling with Retry-After, latency, dropped watches, failing checkpoint writes,
 * failing Events) while the agent deploys and then updates instances of a framework with real
 * readiness waits. A try (one instance under one profile) is clean when it ends COMPLETE with the
 * desired objects and its history holds every transition once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultInjector, type FaultRuleInput } from '../../src/cluster/faults/index.js';
import { Renderer } from '../../src/render/index.js';
import { until } from '../helpers/wait.js';
import { agentWorld, mirrorOf, testAgent, type AgentWorld } from '../sync/fixtures.js';
import { Tally } from './figures.js';
import { audit, relFramework, relInstance, type Audit } from './world.js';

const WRITES = ['create', 'update', 'patch', 'delete'] as const;
const PROFILES: Array<{ name: string; rules: (ns: string) => FaultRuleInput[] }> = [
  { name: 'writes-503-30pct', rules: () => [{ verb: [...WRITES], error: 503, rate: 0.3 }] },
  { name: 'throttled-429-retry-after', rules: () => [{ verb: ['patch', 'update', 'create'], error: 429, retryAfterSeconds: 1, rate: 0.3 }] },
  { name: 'reads-500-20pct', rules: () => [{ verb: ['get', 'list'], error: 500, rate: 0.2 }] },
  { name: 'latency-150ms', rules: () => [{ latencyMs: 150 }] },
  { name: 'watches-dropped-150ms', rules: () => [{ verb: 'watch', dropWatchAfterMs: 150 }] },
  { name: 'checkpoint-writes-503-50pct', rules: (ns) => [{ verb: ['update', 'create'], resource: 'configmaps', namespace: ns, name: ['baton-checkpoint-one', 'baton-checkpoint-two'], error: 503, rate: 0.5 }] },
  { name: 'events-503', rules: () => [{ resource: 'events', error: 503 }] },
  { name: 'slow-writes-1s-10pct', rules: () => [{ verb: ['patch', 'update', 'create'], latencyMs: 1000, rate: 0.1 }] },
  { name: 'lists-503-50pct', rules: () => [{ verb: 'list', error: 503, rate: 0.5 }] },
  { name: 'mixed', rules: () => [{ verb: [...WRITES], error: 503, rate: 0.1 }, { verb: ['get', 'list'], error: 500, rate: 0.1 }, { verb: 'watch', dropWatchAfterMs: 300 }] },
];
const NAMES = ['one', 'two'];

describe('reliability: API fault profiles', () => {
  const faults = createFaultInjector([], { seed: 5 });
  let world: AgentWorld;
  let check: Audit;
  let renderer: Renderer;

  beforeAll(async () => {
    world = await agentWorld({ controllers: true, interceptor: faults, faultAdmin: faults, timing: { podStartDelayMs: 30, readyDelayMs: 60 } });
    check = await audit(world);
    renderer = new Renderer();
    for (const [path, text] of Object.entries(relFramework())) world.user.write(path, text);
    world.user.commit('framework');
    await world.user.push();
  });
  afterAll(async () => {
    await renderer.close();
    check.close();
    await world.stop();
  });

  it(`GIVEN ${PROFILES.length} fault profiles WHEN instances deploy and update under each THEN every plan completes and is recorded once`, async () => {
    const tally = new Tally();
    const seconds: Record<string, number> = {};
    for (const profile of PROFILES) {
      const ns = `faults-${profile.name}`;
      const started = Date.now();
      const values = new Map(NAMES.map((n) => [`${ns}/${n}`, '']));
      const agent = testAgent(mirrorOf(world, `agent-${profile.name}`), check.client, renderer, { coalesceMs: 50 });
      await agent.start();
      const defects: string[] = [];
      try {
        // Deploy, then update: two plans per instance under the profile.
        for (const value of ['first', 'second']) {
          await world.user.pull();
          for (const n of NAMES) {
            world.user.write(`instances/${ns}/${n}.yaml`, relInstance(`${profile.name}-${value}`, 150));
            values.set(`${ns}/${n}`, `${profile.name}-${value}`);
          }
          world.user.commit(`${profile.name}: ${value}`);
          await world.user.push();
          faults.setRules(profile.rules(ns));
          await until(async () => {
            await agent.pass().catch(() => undefined);
            for (const [id, v] of values) if (!(await check.settled(ns, id.split('/')[1] ?? '', v))) return false;
            return true;
          }, 120_000, `${profile.name}: ${value} settled`, 100).catch((err: unknown) => defects.push(String(err)));
          faults.clear();
        }
        await agent.pass();
      } finally {
        faults.clear();
        await agent.stop();
      }
      const result = await check.defects(values);
      for (const n of NAMES) tally.record([...defects, ...result.defects].filter((d) => d.includes(`${ns}/${n}`) || !d.includes(ns)).map((d) => `${profile.name}: ${d}`));
      seconds[profile.name] = Math.round((Date.now() - started) / 100) / 10;
    }
    tally.report('API fault profiles', { profiles: PROFILES.length, slowestProfileSeconds: Math.max(...Object.values(seconds)) });
    expect(tally.defects).toEqual([]);
  });
});
