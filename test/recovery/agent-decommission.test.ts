/**
 * Decommission on scale-down end to end (issue #13): the catalog Redis (decommission volumes: delete)
 * deployed by the agent with two replicas; REPLICAS lowered to 1 in Git; once the scale-down completed
 * the removed replica's claim is deleted as a recorded `decommission` run, the other claims stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent } from '../../src/sync/agent.js';
import { startAgentHarness, WORKLOAD_CLUSTER, type AgentHarness } from '../helpers/agent-harness.js';
import { catalogFrameworkFiles } from '../helpers/catalog-files.js';
import { outcomeLines } from '../sync/fixtures.js';

const instance = (replicas: number): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: redis\nversion: 1.1.0\nparams: { REPLICAS: ${replicas} }\n`;

describe('decommission: a Redis scale-down', () => {
  let h: AgentHarness;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startAgentHarness({
      cluster: WORKLOAD_CLUSTER,
      files: { ...catalogFrameworkFiles('redis', '1.1.0'), 'instances/data/cache.yaml': instance(2) },
      message: 'redis with two replicas',
      agent: { podCheckIntervalMs: 0, coalesceMs: 10 },
    });
    ({ client, agent } = h);
    expect((await agent.pass()).reports.map((r) => `${r.instance} ${r.outcome.kind}`)).toEqual(['data/cache complete']);
  }, 60_000);
  afterAll(() => h.stop());

  const claims = async (): Promise<string[]> => (await client.list('v1', 'PersistentVolumeClaim', 'data')).items.filter((c) => c.metadata.deletionTimestamp === undefined).map((c) => c.metadata.name ?? '').sort();

  it('GIVEN REPLICAS lowered from 2 to 1 WHEN the update completes THEN data-cache-replica-1 is deleted as a recorded decommission run; the others stay', async () => {
    expect(await claims()).toEqual(expect.arrayContaining(['data-cache-primary-0', 'data-cache-replica-0', 'data-cache-replica-1']));
    await h.push({ 'instances/data/cache.yaml': instance(1) }, 'one replica');
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    while (!seen.includes('data/cache complete decommission')) {
      seen.push(...outcomeLines(await agent.pass()));
      if (Date.now() > deadline) throw new Error(`no decommission; passes: ${seen.join(', ')}`);
    }
    expect(seen[0]).toBe('data/cache complete update');
    expect(await claims()).not.toContain('data-cache-replica-1');
    expect(await claims()).toEqual(expect.arrayContaining(['data-cache-primary-0', 'data-cache-replica-0']));
    const runs = (await h.historyOf('data/cache')).filter((e) => e.plan === 'decommission');
    expect(runs.map((e) => [e.event, e.pods, e.requestedBy]).reverse()).toEqual([['plan-started', ['cache-replica-1'], 'decommission'], ['plan-complete', ['cache-replica-1'], 'decommission']]);
    // Done once: the next pass does nothing.
    expect(outcomeLines(await agent.pass())).toEqual([]);
  }, 60_000);
});
