import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import type { GitSandbox, WorkClone } from '../helpers/git-server.js';
import type { TestCluster } from '../helpers/cluster.js';
import { agentWorld, instance, type AgentWorld } from './fixtures.js';

function captureIO(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', isTTY: false, cwd, exitCode: 0, stdout: (t: string) => { io.out += t; }, stderr: (t: string) => { io.err += t; } };
  return io;
}

describe('baton agent --once, baton plan trigger and baton history from the command line', () => {
  let sandbox: GitSandbox;
  let cluster: TestCluster;
  let user: WorkClone;
  let origin: string;

  let world: AgentWorld;

  beforeAll(async () => {
    world = await agentWorld();
    ({ sandbox, cluster, origin, user } = world);
    user.write('instances/team/app.yaml', instance({ VALUE: 'a' }));
    user.write('baton.yaml', 'apiVersion: baton.dev/v1alpha1\nkind: Repository\nagent:\n  author: { name: Ops Bot, email: ops@example.com }\n');
    user.commit('app');
    await user.push();
  });
  afterAll(async () => {
    await world.stop();
  });

  const agentOnce = async (): Promise<CliIO & { out: string; err: string }> => {
    const io = captureIO(sandbox.dir);
    await main(['node', 'baton', 'agent', '--git', origin, '--once', '--kubeconfig', cluster.kubeconfigPath, '--data-dir', join(sandbox.dir, 'agent-data')], io);
    return io;
  };

  it('GIVEN a new instance WHEN `baton agent --once` runs THEN it deploys, reports, uses the baton.yaml identity and exits 0', async () => {
    const io = await agentOnce();
    expect(io.err).not.toContain('"level":"error"');
    expect(io.out).toContain('team/app: deploy COMPLETE (new instance)');
    expect(io.exitCode).toBe(0);
    await user.pull();
    expect(user.git('log', '-1', '--format=%an', '--', 'status')).toBe('Ops Bot');
    // Kubernetes Events tell the same story in the cluster: on the applied object and on the instance.
    const described = await cluster.kubectl(['describe', 'configmap', 'app', '-n', 'team']);
    expect(described.stdout).toMatch(/Normal\s+Applied\s+.*applied by Baton: team\/app plan deploy, phase main, step main/);
    const events = await cluster.kubectl(['get', 'events', '-n', 'team', '--field-selector', 'involvedObject.name=baton-checkpoint-app', '-o', 'jsonpath={.items[*].reason}']);
    expect(events.stdout.split(' ')).toEqual(expect.arrayContaining(['PlanStarted', 'PhaseComplete', 'PlanComplete']));
  });

  it('GIVEN `baton plan trigger` on the repository WHEN the agent runs THEN the plan runs once and history shows it', async () => {
    const trig = captureIO(sandbox.dir);
    await main(['node', 'baton', 'plan', 'trigger', 'team/app', 'backup', '--arg', 'LABEL=manual', '--git', origin], trig);
    expect(trig.err).toBe('');
    expect(trig.out).toMatch(/requested backup for team\/app \(id r-\d+-[0-9a-f]+\) in commit [0-9a-f]{12}, pushed/);
    expect((await agentOnce()).out).toContain('team/app: backup COMPLETE (plan requested)');
    expect((await agentOnce()).out).toContain('nothing to do');

    const hist = captureIO(sandbox.dir);
    await main(['node', 'baton', 'history', 'team/app', '--git', origin, '-o', 'json'], hist);
    const entries = JSON.parse(hist.out) as { plan?: string; result?: string; event?: string }[];
    expect(entries.filter((e) => e.event === 'plan-complete').map((e) => e.plan)).toEqual(['backup', 'deploy']);
  });

  it.each([
    [['plan', 'trigger', 'app', 'backup'], 'expected <namespace>/<name>', 2],
    [['plan', 'trigger', 'team/app', 'backup', '--arg', 'NOEQUALS'], 'expected KEY=VALUE', 2],
    [['plan', 'trigger', 'team/ghost', 'backup'], 'instances/team/ghost.yaml does not exist', 1],
    [['plan', 'trigger', 'team/app', 'bakcup'], 'has no plan "bakcup" (plans: backup, deploy)', 1],
    [['plan', 'trigger', 'team/app', 'backup', '--arg', 'LABLE=x'], 'argument LABLE: plan backup of framework web 1.0.0 does not take it (arguments: LABEL)', 1],
    [['agent', '--once', '--interval', 'soon', '--git', '/nonexistent'], 'expected a duration', 2],
    [['history', '--limit', '0'], '--limit expects a whole number', 2],
  ])('refuses bad input %j with a clear error', async (args, message, code) => {
    const io = captureIO(sandbox.dir);
    const exit = await main(['node', 'baton', ...args, ...(args[0] === 'plan' ? ['--git', origin] : [])], io);
    expect(io.err).toContain(message);
    expect(exit === 0 ? io.exitCode : exit).toBe(code);
  });

  it('refuses BATON_EVENTS other than true or false, naming the variable', async () => {
    const io = captureIO(sandbox.dir);
    process.env.BATON_EVENTS = 'maybe';
    let exit: number;
    try {
      exit = await main(['node', 'baton', 'agent', '--once', '--git', origin], io);
    } finally {
      delete process.env.BATON_EVENTS;
    }
    expect(io.err).toContain('$BATON_EVENTS value: expected true or false, got "maybe"');
    expect(exit === 0 ? io.exitCode : exit).toBe(1);
  });
});
