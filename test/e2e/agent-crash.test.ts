/**
 * npm run test:e2e: an agent process (started through tsx) killed at random moments, three rounds and a
 * final pass; minutes of CPU on a loaded machine, so it runs beside the install test rather than in
 * npm test. test/reliability/kills.test.ts measures kills at every write point.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runAgent } from '../../src/sync/run.js';
import { resolveSettings } from '../../src/sync/settings.js';
import { git, type GitSandbox, type WorkClone } from '../helpers/git-server.js';
import type { TestCluster } from '../helpers/cluster.js';
import { agentWorld, instance, type AgentWorld } from '../sync/fixtures.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

/** Waits until the origin holds at least `count` agent status commits. */
async function untilAgentCommits(origin: string, env: NodeJS.ProcessEnv, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const n = git(env, origin, 'log', '--format=%(trailers:key=Baton-Instance,valueonly)', 'main').split('\n').filter(Boolean).length;
    if (n >= count) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('an agent killed at random moments while plans run and others push', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let user: WorkClone;
  let origin: string;

  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    ({ sandbox, cluster, origin, user } = world);
    for (const n of NAMES) user.write(`instances/crash/${n}.yaml`, instance({ VALUE: n }));
    user.commit('six instances');
    await user.push();
  });
  afterAll(async () => {
    await world.stop();
  });

  it('GIVEN SIGKILLs during plans and concurrent pushes WHEN the agent restarts THEN every plan completes and every plan end is in git log', async () => {
    const dataDir = join(sandbox.dir, 'agent-data');
    const args = ['agent', '--git', origin, '--data-dir', dataDir, '--concurrency', '1', '--interval', '300ms'];
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args, '--kubeconfig', cluster.kubeconfigPath], { cwd: process.cwd(), env: sandbox.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      const exited = new Promise((r) => child.once('exit', r));
      // Kill only once this agent is at work (start-up under load varies), at a random moment after.
      await untilAgentCommits(origin, sandbox.env, round + 1, 120_000);
      await new Promise((r) => setTimeout(r, Math.random() * 1500));
      // Someone else pushes meanwhile: the agent's status pushes must rebase on it.
      await user.pull();
      user.write(`notes/round-${round}.txt`, 'x\n');
      user.commit(`unrelated change ${round}`);
      await user.push().catch(() => undefined);
      // The agent must still be running: it never exits by itself in loop mode.
      expect(child.exitCode, stderr.split('\n').filter((l) => l.includes('error')).join('\n')).toBeNull();
      child.kill('SIGKILL');
      await exited;
    }
    // The killed agents did part of the work (and pushed status) before the final pass.
    await user.pull();
    expect(user.git('log', '--format=%(trailers:key=Baton-Instance,valueonly)').split('\n').filter(Boolean).length).toBeGreaterThan(0);
    const lines: string[] = [];
    const settings = resolveSettings({ repo: origin, dataDir, kubeconfig: cluster.kubeconfigPath, once: true, concurrency: '1' }, sandbox.env, process.cwd());
    const logs: string[] = [];
    const code = await Promise.race([
      runAgent(settings, { interval: false, statusBranch: false }, { log: (level, msg) => logs.push(`${level} ${msg}`), report: (l) => lines.push(l) }),
      new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`the final pass did not finish: ${logs.join('\n')}`)), 60_000)),
    ]);
    expect(code, lines.join('\n')).toBe(0);

    await user.pull();
    for (const n of NAMES) {
      expect(user.git('show', `HEAD:status/crash/${n}.yaml`)).toContain('state: COMPLETE');
      const events = user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', '--', `status/crash/${n}.yaml`).split('\n').filter(Boolean);
      expect(events, n).toContain('plan-complete');
    }
    // Nobody's commit was lost to a status push.
    expect(user.git('log', '--format=%s')).toContain('unrelated change 2');
  }, 300_000);
});
