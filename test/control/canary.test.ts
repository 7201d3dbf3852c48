/**
 * Issue #13, canary strategies end to end: the agent on the simulated cluster runs plans whose phase
 * (steps) or plan (phases) strategy is `serial-canary` or `parallel-canary`. The first item runs and
 * the plan waits; `baton plan continue` (a request commit) lets the second run, which waits again;
 * then the rest run serially or in parallel. Every item is a Deployment no controller observes, so
 * its gate waits until the test releases it: "in parallel" is seen as both remaining items running at
 * once, "serially" as the last one not even applied while the one before it waits. The preview of
 * the change and `baton plan status` (Git and cluster) say where the plan waits and what continues it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { PlanRun } from '../../src/plans/state.js';
import type { Agent } from '../../src/sync/agent.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { startAgentHarness, type AgentHarness, type CliRun } from '../helpers/agent-harness.js';
import { API, releaseGate, type AgentWorld } from '../sync/fixtures.js';

const key = { namespace: 'ops', name: 'cn' };
const ITEMS = ['a', 'b', 'c', 'd'];
type Case = { plan: string; param: string; level: 'phase' | 'plan'; order: 'serial' | 'parallel' };
const CASES: Case[] = [
  { plan: 'steps-serial', param: 'STEPS_SERIAL', level: 'phase', order: 'serial' },
  { plan: 'steps-parallel', param: 'STEPS_PARALLEL', level: 'phase', order: 'parallel' },
  { plan: 'phases-serial', param: 'PHASES_SERIAL', level: 'plan', order: 'serial' },
  { plan: 'phases-parallel', param: 'PHASES_PARALLEL', level: 'plan', order: 'parallel' },
];

/** The Deployment of one item of one plan: `cn-steps-serial-a`. */
const gateName = (plan: string, item: string): string => `cn-${plan}-${item}`;

function canaryFramework(): Record<string, string> {
  const dir = 'frameworks/canary/1.0.0';
  const lines = [API, 'kind: Framework', 'name: canary', 'version: 1.0.0', 'appVersion: "1"', 'tasks:', '  - { name: config, kind: Apply, resources: [config.yaml.ejs] }'];
  const files: Record<string, string> = {};
  for (const c of CASES) {
    for (const i of ITEMS) {
      lines.push(`  - { name: ${c.plan}-${i}, kind: Apply, resources: [${c.plan}-${i}.yaml.ejs] }`);
      files[`${dir}/templates/${c.plan}-${i}.yaml.ejs`] = [
        'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', `  name: <%= instance.name + "-${c.plan}-${i}" %>`,
        `  annotations: { value: "<%= params.${c.param} %>" }`, 'spec:', '  replicas: 0',
        `  selector: { matchLabels: { app: ${c.plan}-${i} } }`, '  template:', '    metadata:', `      labels: { app: ${c.plan}-${i} }`,
        '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
      ].join('\n');
    }
  }
  lines.push('plans:', '  deploy:', '    phases:', '      - { name: main, steps: [{ name: config, tasks: [config] }] }');
  for (const c of CASES) {
    lines.push(`  ${c.plan}:`);
    if (c.level === 'phase') {
      lines.push('    phases:', '      - name: nodes', `        strategy: ${c.order}-canary`, '        steps:', ...ITEMS.map((i) => `          - { name: ${i}, tasks: [${c.plan}-${i}] }`));
    } else {
      lines.push(`    strategy: ${c.order}-canary`, '    phases:', ...ITEMS.map((i) => `      - { name: ${i}, steps: [{ name: go, tasks: [${c.plan}-${i}] }] }`));
    }
  }
  files[`${dir}/framework.yaml`] = `${lines.join('\n')}\n`;
  files[`${dir}/params.yaml`] = `${CASES.map((c) => `- { name: ${c.param}, type: string, default: v1, trigger: ${c.plan} }`).join('\n')}\n`;
  files[`${dir}/templates/config.yaml.ejs`] = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name %>\ndata: { at: "1" }\n';
  return files;
}

const instanceText = (values: Record<string, string>): string => [
  API, 'kind: Instance', 'framework: canary', 'version: 1.0.0', 'params:', ...CASES.map((c) => `  ${c.param}: ${values[c.param] ?? 'v1'}`), '',
].join('\n');

describe('canary strategies, end to end with the agent', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  const values: Record<string, string> = {};

  beforeAll(async () => {
    h = await startAgentHarness({ files: { ...canaryFramework(), 'instances/ops/cn.yaml': instanceText(values) }, message: 'canary instance', agent: { coalesceMs: 10 } });
    ({ world, client, agent } = h);
    await agent.pass();
  });
  afterAll(() => h.stop());

  const run = (...args: string[]): Promise<CliRun> => h.baton(args, world.user.dir);
  const active = async (): Promise<PlanRun | undefined> => (await h.checkpointOf(key))?.active;
  const waitRun = async (what: string, cond: (run: PlanRun) => boolean): Promise<PlanRun> => {
    let last: Checkpoint | undefined;
    await until(async () => {
      last = await h.checkpointOf(key);
      return last?.active !== undefined && cond(last.active);
    }, 30_000, what);
    return last!.active!;
  };
  /** The state of item `i` of the case: a step of phase nodes, or the phase `i`. */
  const itemState = (c: Case, r: PlanRun, i: string): string | undefined => (c.level === 'phase'
    ? r.phases[0]?.steps.find((s) => s.name === i)?.state.status
    : r.phases.find((p) => p.name === i)?.state.status);
  const exists = async (c: Case, i: string): Promise<boolean> => (await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ops', name: gateName(c.plan, i) })) !== undefined;
  const waitsAfter = (c: Case, item: string, continues: number): object => (c.level === 'phase' ? { phase: 'nodes', after: item, continues } : { after: item, continues });
  const point = (c: Case, item: string): string => (c.level === 'phase' ? `after step ${item} of phase nodes` : `after phase ${item}`);
  const continueCmd = (c: Case): string => `baton plan continue ops/cn --plan ${c.plan}`;

  it.each(CASES)('GIVEN a change that runs $plan ($level-level $order-canary) THEN the preview, the waits, the continues and the $order rest', async (c) => {
    // The change, and what its preview says about the waits.
    await world.user.pull();
    values[c.param] = 'v2';
    world.user.write('instances/ops/cn.yaml', instanceText(values));
    world.user.commit(`change ${c.param}`);
    const preview = await run('preview', '--base', 'HEAD~1', '--head', 'HEAD', '--git', '.', '-o', 'text');
    expect(preview.code, preview.err).toBe(0);
    expect(preview.out).toContain(`ops/cn: runs ${c.plan}`);
    expect(preview.out).toContain(`canary: waits for \`${continueCmd(c)}\` ${point(c, 'a')}`);
    expect(preview.out).toContain(`canary: waits for \`${continueCmd(c)}\` ${point(c, 'b')}`);
    expect(preview.out).not.toContain(point(c, 'c'));
    await world.user.push();

    // The first item runs; the plan waits after it; the second is not applied.
    await agent.pass({ wait: false });
    await releaseGate(client, 'ops', gateName(c.plan, 'a'));
    let r = await waitRun(`${c.plan} waiting after a`, (x) => x.plan === c.plan && x.state.status === 'WAITING');
    expect(r.state).toMatchObject({ status: 'WAITING', waits: [waitsAfter(c, 'a', 1)] });
    expect(ITEMS.map((i) => itemState(c, r, i))).toEqual(['COMPLETE', 'PENDING', 'PENDING', 'PENDING']);
    expect(await exists(c, 'b')).toBe(false);
    // baton plan status, from Git and from the cluster: where it waits and what continues it.
    await agent.writer.flush();
    const fromGit = await run('plan', 'status', 'ops/cn', '--git', world.origin);
    expect(fromGit.code).toBe(0);
    expect(fromGit.out).toContain('state: WAITING');
    expect(fromGit.out).toContain(`plan ${c.plan} waits ${point(c, 'a')} (canary); continue with \`${continueCmd(c)}\``);
    const fromCluster = await run('plan', 'status', 'ops/cn', '--kubeconfig', world.cluster.kubeconfigPath);
    expect(fromCluster.out).toContain(`WAITING for continue ${point(c, 'a')}`);
    // Nothing starts by itself.
    await agent.pass();
    expect(itemState(c, (await active())!, 'b')).toBe('PENDING');

    // First continue: the second item runs, then the plan waits again.
    const first = await run('plan', 'continue', 'ops/cn', '--plan', c.plan, '--git', world.origin);
    expect(first.code, first.err).toBe(0);
    await agent.pass({ wait: false });
    await releaseGate(client, 'ops', gateName(c.plan, 'b'));
    r = await waitRun(`${c.plan} waiting after b`, (x) => x.state.status === 'WAITING' && x.state.waits[0]?.after === 'b');
    expect(r.state).toMatchObject({ waits: [waitsAfter(c, 'b', 2)] });
    expect(ITEMS.map((i) => itemState(c, r, i))).toEqual(['COMPLETE', 'COMPLETE', 'PENDING', 'PENDING']);
    expect(await exists(c, 'c')).toBe(false);

    // Second continue (once the status in Git shows the wait: the command checks the plan's state there).
    // Then the rest, in parallel (both wait on their gates at once) or serially (d waits for c).
    await agent.writer.flush();
    const second = await run('plan', 'continue', 'ops/cn', '--plan', c.plan, '--git', world.origin);
    expect(second.code, second.err).toBe(0);
    await agent.pass({ wait: false });
    if (c.order === 'parallel') {
      r = await waitRun(`${c.plan}: c and d running together`, (x) => itemState(c, x, 'c') === 'IN_PROGRESS' && itemState(c, x, 'd') === 'IN_PROGRESS');
      // A phase is IN_PROGRESS in the checkpoint just before its step applies: wait for the object.
      await until(async () => exists(c, 'd'), 30_000, `${c.plan}: d applied`);
      await releaseGate(client, 'ops', gateName(c.plan, 'd'));
      await releaseGate(client, 'ops', gateName(c.plan, 'c'));
    } else {
      r = await waitRun(`${c.plan}: c running`, (x) => itemState(c, x, 'c') === 'IN_PROGRESS');
      expect(itemState(c, r, 'd')).toBe('PENDING');
      expect(await exists(c, 'd')).toBe(false);
      await releaseGate(client, 'ops', gateName(c.plan, 'c'));
      await releaseGate(client, 'ops', gateName(c.plan, 'd'));
    }
    r = await waitRun(`${c.plan} complete`, (x) => x.state.status === 'COMPLETE');
    expect(r.plan).toBe(c.plan);
    await agent.writer.flush();
    await world.user.pull();
    const waits = world.user.git('log', '--format=%(trailers:key=Baton-Run,valueonly)', '--grep=Baton-Event: plan-waiting').split('\n').filter((l) => l.trim() === r.id);
    expect(waits).toHaveLength(2);
    const continued = world.user.git('log', '--format=%(trailers:key=Baton-Run,valueonly)', '--grep=Baton-Event: plan-continued').split('\n').filter((l) => l.trim() === r.id);
    expect(continued).toHaveLength(2);
  });

  it('THEN the history has every run started once and ended at most once, each wait recorded once', async () => {
    await agent.writer.flush();
    const check = checkHistory(world.sandbox.env, world.origin, { instances: ['ops/cn'] });
    expect(check.defects).toEqual([]);
  });
});
