/**
 * Issue #13, "Bad input": a request commit, even a refused one or one naming another plan, disturbs
 * nothing already running. The agent runs a three-step deploy whose steps wait on gates the test
 * releases one at a time; refused requests (a resume of a plan not paused, a pause of a plan not
 * running, a force-complete of a completed step) and a valid request for another instance are
 * committed while it runs. The plan goes on step by step: started once, never superseded, no step
 * started (applied) twice; each refusal is in Git once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { EngineEvent } from '../../src/plans/events.js';
import type { Agent } from '../../src/sync/agent.js';
import type { RequestInput } from '../../src/sync/request-commit.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, releaseGate, type AgentWorld } from '../sync/fixtures.js';

const run = { namespace: 'ops', name: 'run' };
const other = { namespace: 'ops', name: 'other' };

/** deploy: one phase of three steps, each a Deployment no controller observes (its gate waits for releaseGate); backup: one ConfigMap. */
function stepsFramework(): Record<string, string> {
  const dir = 'frameworks/steps/1.0.0';
  const steps = ['a', 'b', 'c'];
  const files: Record<string, string> = {
    [`${dir}/framework.yaml`]: [
      API, 'kind: Framework', 'name: steps', 'version: 1.0.0', 'appVersion: "1"',
      'tasks:',
      ...steps.map((s) => `  - { name: gate-${s}, kind: Apply, resources: [gate-${s}.yaml.ejs] }`),
      '  - { name: mark, kind: Apply, resources: [mark.yaml.ejs] }',
      'plans:',
      '  deploy:',
      '    phases:',
      '      - name: main',
      '        steps:',
      ...steps.map((s) => `          - { name: ${s}, tasks: [gate-${s}] }`),
      '  backup:',
      '    phases:',
      '      - { name: main, steps: [{ name: mark, tasks: [mark] }] }',
      '',
    ].join('\n'),
    [`${dir}/templates/mark.yaml.ejs`]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: <%= instance.name + "-mark" %>\ndata: { at: "1" }\n',
  };
  for (const s of steps) {
    files[`${dir}/templates/gate-${s}.yaml.ejs`] = [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', `  name: <%= instance.name + "-${s}" %>`, 'spec:', '  replicas: 0',
      `  selector: { matchLabels: { app: <%= instance.name + "-${s}" %> } }`, '  template:', '    metadata:', `      labels: { app: <%= instance.name + "-${s}" %> }`,
      '    spec: { containers: [{ name: c, image: "nginx:1.27" }] }', '',
    ].join('\n');
  }
  return files;
}

describe('requests committed while a plan runs', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  const events: EngineEvent[] = [];

  beforeAll(async () => {
    const instances = Object.fromEntries([run, other].map((k) => [`instances/${k.namespace}/${k.name}.yaml`, [API, 'kind: Instance', 'framework: steps', 'version: 1.0.0', ''].join('\n')]));
    h = await startAgentHarness({ files: { ...stepsFramework(), ...instances }, message: 'two instances of steps', agent: { coalesceMs: 10, onEngineEvent: (e) => events.push(e) } });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const checkpointOf = (k: typeof run): Promise<Checkpoint | undefined> => h.checkpointOf(k);
  const stepStatus = (cp: Checkpoint | undefined, step: string): string | undefined => cp?.active?.phases[0]?.steps.find((s) => s.name === step)?.state.status;
  const waitStep = async (k: typeof run, step: string, status: string): Promise<void> => {
    await until(async () => stepStatus(await checkpointOf(k), step) === status, 30_000, `${k.name}: step ${step} ${status}`);
  };
  const request = async (k: typeof run, r: RequestInput): Promise<string> => {
    const id = await h.request(k, r);
    await agent.pass({ wait: false });
    return id;
  };
  const statusInGit = (k: typeof run): Promise<InstanceStatus> => h.statusInGit(k);
  const refusalRecorded = async (id: string): Promise<void> => {
    await until(async () => (await statusInGit(run)).requests?.some((r) => r.id === id) === true, 30_000, `refusal of ${id} in Git`);
  };
  const ofRun = (type: EngineEvent['type']): EngineEvent[] => events.filter((e) => e.type === type && e.instance.name === 'run');

  it('GIVEN a deploy running step by step WHEN refused requests and a request for another instance are committed THEN the deploy goes on undisturbed and each refusal is recorded once', async () => {
    await agent.pass({ wait: false });
    await waitStep(run, 'a', 'IN_PROGRESS');
    await waitStep(other, 'a', 'IN_PROGRESS');
    const runId = (await checkpointOf(run))?.active?.id;

    // While step a waits: a resume of a plan that is not paused, and a pause naming a plan that is not running.
    const notPaused = await request(run, { action: 'resume', args: {} });
    await refusalRecorded(notPaused);
    const anotherPlan = await request(run, { action: 'pause', plan: 'backup', reason: 'wrong plan', args: {} });
    await refusalRecorded(anotherPlan);
    // A valid request for the other instance: its plan pauses; this one is not concerned.
    await request(other, { action: 'pause', reason: 'maintenance', args: {} });
    await until(async () => (await checkpointOf(other))?.active?.state.status === 'PAUSED', 30_000, 'the other instance paused');
    expect(stepStatus(await checkpointOf(run), 'a')).toBe('IN_PROGRESS');

    await releaseGate(client, 'ops', 'run-a');
    await waitStep(run, 'b', 'IN_PROGRESS');
    // While step b waits: a force-complete of the completed step a.
    const completed = await request(run, { action: 'force-complete', phase: 'main', step: 'a', reason: 'by hand', args: {} });
    await refusalRecorded(completed);
    await releaseGate(client, 'ops', 'run-b');
    await waitStep(run, 'c', 'IN_PROGRESS');
    await releaseGate(client, 'ops', 'run-c');
    await until(async () => (await checkpointOf(run))?.active?.state.status === 'COMPLETE', 30_000, 'the deploy complete');

    const cp = await checkpointOf(run);
    expect(cp?.active?.id).toBe(runId);
    // Started once, never interrupted, every step applied once.
    expect(ofRun('plan-started')).toHaveLength(1);
    expect(ofRun('plan-superseded')).toHaveLength(0);
    const starts = ofRun('step-started').map((e) => (e.type === 'step-started' ? `${e.step}#${e.attempt}` : ''));
    expect(starts).toEqual(['a#0', 'b#0', 'c#0']);

    const status = await statusInGit(run);
    expect(status.state).toBe('COMPLETE');
    const byId = new Map((status.requests ?? []).map((r) => [r.id, r]));
    expect(byId.get(notPaused)).toMatchObject({ result: 'refused', code: 'PLAN_NOT_PAUSED', by: 'Ada <ada@example.com>' });
    expect(byId.get(anotherPlan)).toMatchObject({ result: 'refused', code: 'PLAN_NOT_RUNNING' });
    expect(byId.get(completed)).toMatchObject({ result: 'refused', code: 'STEP_COMPLETE' });
    for (const id of [notPaused, anotherPlan, completed]) {
      const commits = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', `--grep=Baton-Request: ${id}`).split('\n').map((l) => l.trim()).filter((l) => l === 'request-refused');
      expect(commits, id).toHaveLength(1);
    }
    expect(world.user.git('log', '--format=%s', '--grep=Baton-Event: plan-superseded', '--', 'status/ops/run.yaml').trim()).toBe('');
    // The new desired state (the request file) is recorded as seen: nothing is left for another look.
    await agent.pass();
    expect(ofRun('plan-started')).toHaveLength(1);
  });

  it('GIVEN a running plan WHEN a pause is committed THEN it still acts on the plan at once (the running step makes way)', async () => {
    // The paused instance resumes; its plan runs on to its gate b... its step a's gate still waits.
    await request(other, { action: 'resume', args: {} });
    await waitStep(other, 'a', 'IN_PROGRESS');
    await request(other, { action: 'pause', reason: 'again', args: {} });
    await until(async () => (await checkpointOf(other))?.active?.state.status === 'PAUSED', 30_000, 'the other instance paused again');
  });

  it('THEN the history has every run started once and ended at most once', async () => {
    await agent.writer.flush();
    const check = checkHistory(world.sandbox.env, world.origin, { instances: ['ops/run', 'ops/other'] });
    expect(check.defects).toEqual([]);
  });
});
