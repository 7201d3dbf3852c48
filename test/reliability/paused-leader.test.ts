/**
 * A paused and resumed leader, at several moments: two `baton agent` processes; the leader is
 * SIGSTOPped (mid-plan on a gate, the moment it starts a plan, or idle after a plan), the other takes
 * the lease and completes a plan, then the paused one gets SIGCONT. A try is clean when the resumed
 * agent wrote nothing to the cluster or to Git and exited 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pausedLeader, type PausePoint } from '../helpers/paused-leader.js';
import { agentWorld, gatedFramework, instance, type AgentWorld } from '../sync/fixtures.js';
import { Tally } from './figures.js';

const POINTS: PausePoint[] = ['gate', 'start', 'idle'];
const ROUNDS = Number(process.env.BATON_RELIABILITY_PAUSE_ROUNDS ?? 1);

describe('reliability: a leader paused and resumed after another took over', () => {
  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    for (const [path, text] of Object.entries(gatedFramework())) world.user.write(path, text);
    world.user.commit('gated framework');
    await world.user.push();
  });
  afterAll(async () => {
    await world.stop();
  });

  it(`GIVEN a leader paused at ${POINTS.join(', ')} (${ROUNDS} round(s)) WHEN resumed THEN it writes nothing and exits 1`, async () => {
    const tally = new Tally();
    for (let round = 0; round < ROUNDS; round++) {
      for (const point of POINTS) {
        const name = `app-${point}-${round}`;
        await world.user.pull();
        world.user.write(`instances/paused/${name}.yaml`, instance({ VALUE: 'x' }).replace('framework: web', 'framework: gated'));
        world.user.commit(`paused leader: ${name}`);
        await world.user.push();
        const r = await pausedLeader(world, 'paused', name, `${point}${round}`, point);
        const defects: string[] = [];
        for (const w of r.clusterWrites) defects.push(`${point}: the resumed leader sent ${w.method} ${w.path}`);
        for (const c of r.gitCommits) defects.push(`${point}: the resumed leader pushed commit ${c.slice(0, 10)}`);
        if (r.exitCode !== 1) defects.push(`${point}: the resumed leader exited ${String(r.exitCode)}, not 1`);
        tally.record(defects);
      }
    }
    tally.report('leader paused (SIGSTOP) and resumed after a takeover');
    expect(tally.defects).toEqual([]);
  });
});
