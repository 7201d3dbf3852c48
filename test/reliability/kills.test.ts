/**
 * Kills at many points of a plan: `baton agent` is SIGKILLed again and again, each time after a
 * different number of its own requests to the cluster (applies, checkpoint writes, Events, the lease:
 * every write is a point where a crash may land), while the user keeps changing instances. After each
 * kill the history so far must hold no duplicate or out-of-order transition; at the end, after a
 * last agent settles everything, every run the checkpoints know is in Git exactly as it went, and
 * the cluster holds the last desired state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startAgentProcess } from '../helpers/agent-process.js';
import { recordingProxy } from '../helpers/recording-proxy.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { agentWorld, type AgentWorld } from '../sync/fixtures.js';
import { Tally } from './figures.js';
import { audit, relFramework, relInstance, type Audit } from './world.js';

const KILLS = Number(process.env.BATON_RELIABILITY_KILLS ?? 24);
const NAMES = ['a', 'b', 'c', 'd'];
const LEASE = ['--lease-duration', '4s', '--renew-deadline', '3s', '--lease-retry', '500ms'];

/** mulberry32: kill points are random but reproducible (seed in BATON_RELIABILITY_SEED). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('reliability: an agent killed at many points of its plans', () => {
  let world: AgentWorld;
  let check: Audit;

  beforeAll(async () => {
    world = await agentWorld({ controllers: true, timing: { podStartDelayMs: 30, readyDelayMs: 60 } });
    check = await audit(world);
    for (const [path, text] of Object.entries(relFramework())) world.user.write(path, text);
    for (const n of NAMES) world.user.write(`instances/kill/${n}.yaml`, relInstance('v0', 200));
    world.user.commit('four instances');
    await world.user.push();
  });
  afterAll(async () => {
    check.close();
    await world.stop();
  });

  it(`GIVEN ${KILLS} SIGKILLs at random write counts while the user changes instances WHEN a last agent settles THEN the record and the cluster are exact`, async () => {
    const random = seeded(Number(process.env.BATON_RELIABILITY_SEED ?? 11));
    const tally = new Tally();
    const values = new Map(NAMES.map((n) => [`kill/${n}`, 'v0']));
    const dataDir = join(world.sandbox.dir, 'agent-data');
    const args = (kubeconfig: string): string[] => ['--git', world.origin, '--data-dir', dataDir, '--interval', '200ms', '--concurrency', '2', '--kubeconfig', kubeconfig, ...LEASE];
    const killPoints: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      // New work for this agent: one or two instances change (a running plan is superseded).
      await world.user.pull();
      for (const n of NAMES.filter(() => random() < 0.4).slice(0, 2)) {
        values.set(`kill/${n}`, `v${i + 1}`);
        world.user.write(`instances/kill/${n}.yaml`, relInstance(`v${i + 1}`, 100 + Math.floor(random() * 400)));
      }
      world.user.commit(`change ${i}`);
      await world.user.push();
      const proxy = await recordingProxy(world.cluster.url);
      const agent = startAgentProcess(args(proxy.kubeconfig(join(world.sandbox.dir, `kubeconfig-${i}`))), world.sandbox.env);
      const point = 1 + Math.floor(random() * 40);
      killPoints.push(point);
      // The kill point: after this agent's point-th write to the cluster (or when it ran out of work).
      await until(() => proxy.writes().length >= point || agent.logs.some((l) => /: (complete|failed)$/.test(l)) && proxy.writes().length > 0, 60_000, `kill point ${point}`).catch(() => undefined);
      agent.signal('SIGKILL');
      await agent.exited;
      await proxy.close();
      tally.record(checkHistory(world.sandbox.env, world.origin, { instances: [...values.keys()] }).defects.map((d) => `after kill ${i} (at write ${point}): ${d}`));
    }
    // A last agent, left to finish everything.
    const proxy = await recordingProxy(world.cluster.url);
    const last = startAgentProcess(args(proxy.kubeconfig(join(world.sandbox.dir, 'kubeconfig-last'))), world.sandbox.env);
    try {
      await until(async () => {
        for (const [id, v] of values) if (!(await check.settled('kill', id.split('/')[1] ?? '', v))) return false;
        return true;
      }, 180_000, 'every instance settled', 200);
      // Its last status commits pushed: the record shows every run's end.
      await until(async () => (await check.defects(values)).defects.length === 0, 30_000, 'the record complete', 500).catch(() => undefined);
    } finally {
      last.signal('SIGTERM');
      await last.exited;
      await proxy.close();
    }
    const final = await check.defects(values);
    for (const [id, want] of values) {
      const app = await check.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kill', name: id.split('/')[1] ?? '' });
      const annotations = (app?.['spec'] as { template?: { metadata?: { annotations?: Record<string, string> } } } | undefined)?.template?.metadata?.annotations;
      if (annotations?.value !== want) final.defects.push(`${id}: Deployment template value ${String(annotations?.value)}, expected ${want}`);
    }
    tally.record(final.defects.map((d) => `at the end: ${d}`));
    tally.report('agent killed at random points of its plans', { runsChecked: final.runs, cleanRuns: final.cleanRuns, killPoints: `${Math.min(...killPoints)}-${Math.max(...killPoints)} writes` });
    expect(tally.defects).toEqual([]);
  });
});
