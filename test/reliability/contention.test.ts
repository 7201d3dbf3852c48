/**
 * Pushes under contention, with restarts: the user pushes value changes to the watched branch as fast
 * as git allows while the agent runs plans and pushes status to the same branch (its pushes are
 * rejected and rebuilt again and again), and the agent is SIGKILLed and restarted twice meanwhile.
 * Then the history is checked transition by transition: per run exactly one start, at most one end,
 * in order, each naming a user commit; and against the checkpoints, nothing missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { until } from '../helpers/wait.js';
import { agentWorld, instance, type AgentWorld } from '../sync/fixtures.js';
import { reportFigures } from './figures.js';
import { audit, type Audit } from './world.js';

const PUSHES = Number(process.env.BATON_RELIABILITY_PUSHES ?? 100);
const NAMES = ['p', 'q', 'r'];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('reliability: user pushes racing the agent, with restarts', () => {
  let world: AgentWorld;
  let check: Audit;

  beforeAll(async () => {
    // The web framework: ConfigMaps only, ready at once, so plans are short and transitions many.
    world = await agentWorld();
    check = await audit(world);
    for (const n of NAMES) world.user.write(`instances/race/${n}.yaml`, instance({ VALUE: 'start' }));
    world.user.commit('three instances');
    await world.user.push();
  });
  afterAll(async () => {
    check.close();
    await world.stop();
  });

  it(`GIVEN ${PUSHES} user pushes while plans run and two agent restarts WHEN all settle THEN every transition is in Git once, in order, with its user commit`, async () => {
    const dataDir = join(world.sandbox.dir, 'agent-data');
    let port = 0;
    const start = async (): Promise<AgentProcess> => {
      port = await freePort();
      return startAgentProcess(['--git', world.origin, '--data-dir', dataDir, '--interval', '100ms', '--kubeconfig', world.cluster.kubeconfigPath, '--no-events', '--listen', `127.0.0.1:${port}`], world.sandbox.env);
    };
    /** The agent's rejected-and-rebuilt status pushes so far (its metrics), before it is stopped. */
    let agentRetries = 0;
    const countRetries = async (): Promise<void> => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()).catch(() => '');
      agentRetries += Number(/^baton_status_push_retries_total (\d+)/m.exec(text)?.[1] ?? 0);
    };
    let agent = await start();
    await agent.waitForLog(/became leader/, 60_000);
    const values = new Map(NAMES.map((n) => [`race/${n}`, 'start']));
    let rejected = 0;
    const started = Date.now();
    for (let i = 0; i < PUSHES; i++) {
      const n = NAMES[i % NAMES.length] ?? 'p';
      values.set(`race/${n}`, `v${i}`);
      // As fast as git allows: commit and push; only a rejected push pulls (rebases) first.
      world.user.write(`instances/race/${n}.yaml`, instance({ VALUE: `v${i}` }));
      world.user.commit(`race ${n} v${i}`);
      for (let attempt = 0; ; attempt++) {
        try {
          await world.user.push();
          break;
        } catch (err) {
          // The agent pushed status first: contention from the user's side.
          rejected++;
          if (attempt > 30) throw err;
          await world.user.pull();
        }
      }
      if (i === Math.floor(PUSHES / 3) || i === Math.floor((2 * PUSHES) / 3)) {
        await countRetries();
        agent.signal('SIGKILL');
        await agent.exited;
        agent = await start();
      }
    }
    const pushSeconds = (Date.now() - started) / 1000;
    try {
      await until(async () => {
        for (const [id, v] of values) if (!(await check.settled('race', id.split('/')[1] ?? '', v))) return false;
        return true;
      }, 180_000, 'every instance settled', 200);
      await until(async () => (await check.defects(values)).defects.length === 0, 30_000, 'the record complete', 500).catch(() => undefined);
    } finally {
      await countRetries();
      agent.signal('SIGTERM');
      await agent.exited;
    }
    const result = await check.defects(values);
    // One try per run (in Git or in a checkpoint); a run is clean when no defect names it.
    reportFigures({ suite: 'user pushes racing the agent, with restarts', tries: result.runs, clean: result.cleanRuns, defects: result.defects, extra: { userPushes: PUSHES, userPushesRejected: rejected, agentPushesRejected: agentRetries, pushSeconds: Math.round(pushSeconds) } });
    expect(result.defects).toEqual([]);
  });
});
