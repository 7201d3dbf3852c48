/**
 * `baton plan pause|resume|stop|retry|restart|force-complete|continue` from the command line, both ways:
 * a Git commit the agent carries out, and directly against the cluster. Bad input exits 1 (2 for usage)
 * with a located error and commits or changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startRepoHarness, type CliRun, type RepoHarness } from '../helpers/agent-harness.js';
import { instance, type AgentWorld } from '../sync/fixtures.js';

describe('baton plan control commands', () => {
  let h: RepoHarness;
  let world: AgentWorld;
  const run = (...args: string[]): Promise<CliRun> => h.baton(args);
  const agentOnce = (): Promise<CliRun> => h.agentOnce();
  const head = (): string => world.user.git('ls-remote', world.origin, 'refs/heads/main').split('\t')[0] ?? '';

  beforeAll(async () => {
    h = await startRepoHarness({ files: { 'instances/team/app.yaml': instance({ VALUE: 'a' }) }, message: 'app' });
    world = h.world;
    expect((await agentOnce()).code).toBe(0);
  });
  afterAll(() => h.stop());

  it.each([
    [['plan', 'pause', 'app'], 'expected <namespace>/<instance>', 2],
    [['plan', 'force-complete', 'team/app', '--phase', 'main', '--step', 'main'], 'force-complete needs --reason', 2],
    [['plan', 'force-complete', 'team/app', '--phase', 'main', '--reason', 'x'], 'force-complete needs --phase and --step', 2],
    [['plan', 'restart', 'team/app', '--step', 'main'], '--step needs --phase', 2],
    [['plan', 'pause', 'team/ghost'], 'instances/team/ghost.yaml does not exist', 1],
    [['plan', 'restart', 'team/app', '--plan', 'nosuch'], 'has no plan "nosuch" (plans: backup, deploy)', 1],
    [['plan', 'restart', 'team/app', '--plan', 'deploy', '--phase', 'main', '--step', 'nosuch'], 'phase main of plan deploy has no step "nosuch" (steps: main)', 1],
    [['plan', 'resume', 'team/app'], 'no plan of team/app is running; the last run, deploy, is COMPLETE', 1],
    [['plan', 'force-complete', 'team/app', '--plan', 'deploy', '--phase', 'main', '--step', 'main', '--reason', 'x'], 'is already COMPLETE', 1],
  ])('GitOps: %j is refused before anything is committed', async (args, message, code) => {
    const before = head();
    const io = await run(...args, '--git', world.origin);
    expect(io.err).toContain(message);
    expect(io.code).toBe(code);
    expect(head()).toBe(before);
  });

  it('GitOps: a restart is committed with who and why, and the agent carries it out once', async () => {
    process.env.BATON_AUTHOR_NAME = 'Grace';
    process.env.BATON_AUTHOR_EMAIL = 'grace@example.com';
    try {
      const io = await run('plan', 'restart', 'team/app', '--plan', 'deploy', '--reason', 'refresh config', '--git', world.origin);
      expect(io.err).toBe('');
      expect(io.code).toBe(0);
      expect(io.out).toMatch(/requested restart for team\/app \(id r-\d+-[0-9a-f]+\) in commit [0-9a-f]{12}, pushed/);
    } finally {
      delete process.env.BATON_AUTHOR_NAME;
      delete process.env.BATON_AUTHOR_EMAIL;
    }
    expect((await agentOnce()).out).toContain('team/app: deploy COMPLETE');
    const hist = await run('history', 'team/app', '--git', world.origin, '-o', 'json');
    const entries = JSON.parse(hist.out) as { event?: string; plan?: string }[];
    expect(entries.filter((e) => e.event === 'plan-restarted')).toHaveLength(1);
    const status = await run('plan', 'status', 'team/app', '--git', world.origin);
    expect(status.out).toContain('restart');
  });

  it('GitOps: a request right behind another one the agent has not carried out yet is refused, saying the status is behind', async () => {
    // A restart committed, the agent not yet run: the status still says the last deploy is COMPLETE.
    const restart = await run('plan', 'restart', 'team/app', '--plan', 'deploy', '--reason', 'again', '--git', world.origin);
    expect(restart.code).toBe(0);
    const before = head();
    const pause = await run('plan', 'pause', 'team/app', '--reason', 'hold it', '--git', world.origin);
    expect(pause.code).toBe(1);
    expect(pause.err).toContain('no plan of team/app is running');
    expect(pause.err).toContain('the agent has not yet carried out the newest requests of requests/team/app.yaml: try again once it has');
    expect(head()).toBe(before);
    expect((await agentOnce()).code).toBe(0);
  });

  it('Direct: a refused request exits 1 and changes nothing; a restart runs the plan here and is recorded with the direct user', async () => {
    const before = await h.checkpointOf({ namespace: 'team', name: 'app' });
    const repo = join(world.sandbox.dir, 'user');
    await world.user.pull();
    const refused = await run('plan', 'pause', 'team/app', '--kubeconfig', world.cluster.kubeconfigPath, '--repo', repo);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('pause refused (PLAN_NOT_RUNNING)');
    const after = await h.checkpointOf({ namespace: 'team', name: 'app' });
    expect(after?.active?.id).toBe(before?.active?.id);
    const io = await run('plan', 'restart', 'team/app', '--plan', 'deploy', '--reason', 'by hand', '--kubeconfig', world.cluster.kubeconfigPath, '--repo', repo);
    expect(io.err).toBe('');
    expect(io.code).toBe(0);
    expect(io.out).toContain('plan deploy: the whole plan runs again');
    expect(io.out).toContain('deploy: COMPLETE');
    const cp = await h.checkpointOf({ namespace: 'team', name: 'app' });
    expect(cp?.requestLog?.[0]).toMatchObject({ action: 'restart', via: 'direct', result: 'done', reason: 'by hand' });
    expect(cp?.requestLog?.[1]).toMatchObject({ action: 'pause', via: 'direct', result: 'refused', code: 'PLAN_NOT_RUNNING' });
    expect(cp?.active?.state.status).toBe('COMPLETE');
  });
});
