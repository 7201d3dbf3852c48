/**
 * API faults seen by the agent (issue #11 items 4 and 13): a 503 on a checkpoint write is retried like
 * any transient failure instead of breaking off the reconcile (which then resumed the plan on every
 * poll, committing "started" again each time); the retries of a failing step are logged at warn,
 * rate-limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultInjector } from '../../src/cluster/faults/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineHooks } from '../../src/plans/hooks.js';
import { Renderer } from '../../src/render/index.js';
import { checkHistory } from '../helpers/transitions.js';
import { agentWorld, instance, mirrorOf, testAgent, type AgentWorld } from './fixtures.js';

/** The real classification with backoff cut to a few milliseconds. */
function fastHooks(): EngineHooks {
  const hooks = defaultHooks();
  return { ...hooks, retryDelayMs: (failure, attempt) => (hooks.retryDelayMs(failure, attempt) === undefined ? undefined : 5) };
}

describe('API faults under the agent', () => {
  const faults = createFaultInjector();
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;

  beforeAll(async () => {
    world = await agentWorld({ interceptor: faults, faultAdmin: faults });
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
  });
  afterAll(async () => {
    await renderer.close();
    client.close();
    await world.stop();
  });

  it('GIVEN checkpoint updates answered 503 three times WHEN the plan runs THEN the writes are retried and the plan completes in one pass, started once', async () => {
    world.user.write('instances/faulty/flaky.yaml', instance({ VALUE: 'x' }));
    world.user.commit('flaky');
    await world.user.push();
    faults.setRules([{ verb: 'update', resource: 'configmaps', name: 'baton-checkpoint-flaky', error: 503, count: 3 }]);
    const agent = testAgent(mirrorOf(world, 'agent-faults'), client, renderer, { hooks: fastHooks() });
    await agent.start();
    try {
      const report = await agent.pass();
      expect(report.reports.map((r) => r.outcome)).toEqual([{ kind: 'complete', plan: 'deploy' }]);
      expect(faults.rules()[0]?.hits).toBe(3);
    } finally {
      faults.clear();
      await agent.stop();
    }
    const check = checkHistory(world.sandbox.env, world.origin, { instances: ['faulty/flaky'] });
    expect(check.defects).toEqual([]);
    expect(check.commits.filter((c) => c.event === 'plan-started')).toHaveLength(1);
    expect(check.commits.filter((c) => c.event === 'plan-complete')).toHaveLength(1);
  });

  it('GIVEN applies of a step answered 503 six times WHEN the agent retries THEN the retries are logged at warn with attempt and next retry, once per interval', async () => {
    await world.user.pull();
    world.user.write('instances/faulty/noisy.yaml', instance({ VALUE: 'y' }));
    world.user.commit('noisy');
    await world.user.push();
    faults.setRules([{ verb: 'patch', resource: 'configmaps', name: 'noisy', error: 503, count: 6 }]);
    const logs: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
    const agent = testAgent(mirrorOf(world, 'agent-noisy'), client, renderer, { hooks: fastHooks(), log: (level, message, fields = {}) => logs.push({ level, message, fields }) });
    await agent.start();
    try {
      expect((await agent.pass()).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
      expect(faults.rules()[0]?.hits).toBe(6);
    } finally {
      faults.clear();
      await agent.stop();
    }
    const retries = logs.filter((l) => l.level === 'warn' && l.message.includes('retrying'));
    expect(retries).toHaveLength(1);
    expect(retries[0]?.message).toMatch(/^faulty\/noisy: deploy step main\/main failed \(attempt 1\): .+; retrying in \d+ ms$/);
    expect(retries[0]?.fields).toMatchObject({ instance: 'faulty/noisy', attempt: 1, nextRetry: expect.stringMatching(/^\d{4}-/) as unknown });
  });
});
