/**
 * The audit record (issue #11 items 1-2): every transition of every plan appears in Git exactly once,
 * in order, naming the user's commit that caused it: across a graceful restart that resumes a plan,
 * a crash that lost the status commits of a finished plan, and user pushes racing the agent's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import { Renderer } from '../../src/render/index.js';
import type { Agent } from '../../src/sync/agent.js';
import { readHistory } from '../../src/sync/history.js';
import { checkAgainstCheckpoint, checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { agentWorld, gatedFramework, instance, mirrorOf, releaseGate, testAgent, type AgentWorld } from './fixtures.js';

describe('the audit record: each transition once, in order, with the user commit', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  const checkpoints = (): ConfigMapCheckpointStore => new ConfigMapCheckpointStore(client);
  const checkpointOf = async (namespace: string, name: string): Promise<Checkpoint | undefined> => (await checkpoints().load({ namespace, name }))?.checkpoint;
  const history = (...instances: string[]): ReturnType<typeof checkHistory> => checkHistory(world.sandbox.env, world.origin, { instances });

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const [path, text] of Object.entries(gatedFramework())) world.user.write(path, text);
    world.user.commit('frameworks');
    await world.user.push();
  });
  afterAll(async () => {
    await renderer.close();
    client.close();
    await world.stop();
  });

  it('GIVEN a plan interrupted by a graceful stop WHEN another agent resumes it THEN one started, one end, and the source is the user commit', async () => {
    await world.user.pull();
    world.user.write('instances/audit/slow.yaml', instance({ VALUE: 'one' }).replace('framework: web', 'framework: gated'));
    const userCommit = world.user.commit('add slow');
    await world.user.push();
    const first = testAgent(mirrorOf(world, 'agent-first'), client, renderer);
    await first.start();
    void first.pass({ wait: false });
    // Waiting on the gate of phase two, with phase one recorded.
    await until(async () => (await checkpointOf('audit', 'slow'))?.active?.phases[0]?.state.status === 'COMPLETE', 20_000);
    await first.stop();

    const second = testAgent(mirrorOf(world, 'agent-second'), client, renderer);
    await second.start();
    const pass = second.pass();
    await until(async () => second.running > 0, 10_000);
    await releaseGate(client, 'audit', 'gate-slow');
    expect((await pass).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
    await second.stop();

    const check = history('audit/slow');
    expect(check.defects).toEqual([]);
    const run = (await checkpointOf('audit', 'slow'))?.active;
    const transitions = check.runs.get(run?.id ?? '') ?? [];
    expect(transitions.map((t) => t.event)).toEqual(['plan-started', 'phase-complete', 'phase-complete', 'plan-complete']);
    expect(new Set(transitions.map((t) => t.sourceCommit))).toEqual(new Set([userCommit]));
  });

  it('GIVEN an agent that crashed after a plan finished but before its status commits WHEN restarted THEN every missing transition is recorded once', async () => {
    await world.user.pull();
    world.user.write('instances/audit/crashy.yaml', instance({ VALUE: 'c' }));
    const userCommit = world.user.commit('add crashy');
    await world.user.push();
    // A coalescing window that never ends: the transitions stay in memory, as in a crash before the commit.
    const crashing = testAgent(mirrorOf(world, 'agent-crash'), client, renderer, { coalesceMs: 3_600_000 });
    await crashing.start();
    void crashing.pass({ wait: false });
    await until(async () => (await checkpointOf('audit', 'crashy'))?.active?.state.status === 'COMPLETE' && crashing.running === 0, 20_000);
    expect(crashing.writer.queuedCount).toBeGreaterThan(0);
    crashing.writer.close();

    const restarted = testAgent(mirrorOf(world, 'agent-crash'), client, renderer);
    await restarted.start();
    await restarted.pass();
    // A second look records nothing more.
    await restarted.pass();
    await restarted.stop();

    const check = history('audit/crashy');
    expect(check.defects).toEqual([]);
    const run = (await checkpointOf('audit', 'crashy'))?.active;
    const transitions = check.runs.get(run?.id ?? '') ?? [];
    expect(transitions.map((t) => t.event)).toEqual(['plan-started', 'phase-complete', 'plan-complete']);
    expect(transitions.every((t) => t.sourceCommit === userCommit)).toBe(true);
    // Recorded in one go, yet each commit changes the file: `baton history` (path-limited git log) lists all.
    const mirror = mirrorOf(world, 'agent-crash');
    await mirror.fetch('main');
    const listed = await readHistory(mirror, { ref: 'refs/remotes/origin/main', instance: 'audit/crashy' });
    expect(listed.filter((e) => e.runId === run?.id).map((e) => e.event)).toEqual(['plan-complete', 'phase-complete', 'plan-started']);
  });

  it('GIVEN frequent user pushes to the branch while plans run WHEN all settle THEN no transition is lost or doubled', async () => {
    const names = ['p', 'q'];
    const agent: Agent = testAgent(mirrorOf(world, 'agent-busy'), client, renderer);
    await agent.start();
    let stop = false;
    const loop = (async (): Promise<void> => {
      while (!stop) {
        await agent.pass({ wait: false }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 30));
      }
    })();
    // Each push changes one instance: a new plan, often superseding the running one.
    for (let i = 0; i < 8; i++) {
      const name = names[i % names.length] ?? 'p';
      await world.user.pull();
      world.user.write(`instances/busy/${name}.yaml`, instance({ VALUE: `v${i}` }));
      world.user.commit(`busy ${name} v${i}`);
      await pushWithRetry(world);
      await new Promise((r) => setTimeout(r, 40 + (i % 3) * 60));
    }
    const final: Record<string, string> = { p: 'v6', q: 'v7' };
    const settled = async (n: string): Promise<boolean> => {
      const live = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'busy', name: n });
      return (live?.['data'] as Record<string, string> | undefined)?.value === final[n] && (await checkpointOf('busy', n))?.active?.state.status === 'COMPLETE';
    };
    await until(async () => agent.running === 0 && (await settled('p')) && (await settled('q')), 60_000);
    stop = true;
    await loop;
    await agent.pass();
    await agent.stop();

    const check = history('busy/p', 'busy/q');
    const defects = [...check.defects];
    for (const n of names) defects.push(...checkAgainstCheckpoint(check, await checkpointOf('busy', n)));
    expect(defects).toEqual([]);
  }, 120_000);
});

async function pushWithRetry(world: AgentWorld): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await world.user.push();
      return;
    } catch (err) {
      if (attempt > 20) throw err;
      await world.user.pull();
    }
  }
}
