/**
 * Operators through Git, end to end: the agent against a Git repository and the simulated cluster
 * carries out pause, resume, force-complete, stop, retry, restart and canary continues committed as
 * requests, records each once in the status file, `git log` trailers and Kubernetes Events, refuses bad
 * requests without disturbing what runs, and holds a suspended instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Checkpoint } from '../../src/plans/checkpoint.js';
import type { Agent } from '../../src/sync/agent.js';
import type { RequestInput } from '../../src/sync/request-commit.js';
import { formatRequests } from '../../src/sync/request-file.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { KubeEventRecorder } from '../../src/plans/kube-events.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import type { AgentWorld } from '../sync/fixtures.js';
import { controlFramework, ctlInstance } from './fixtures.js';

const key = { namespace: 'ops', name: 'ctl' };

describe('operator requests through Git, carried out by the agent', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  let kubeEvents: KubeEventRecorder;

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { ...controlFramework(), 'instances/ops/ctl.yaml': ctlInstance() },
      message: 'ctl instance',
      agent: ({ client: c }) => {
        kubeEvents = new KubeEventRecorder(c);
        return { coalesceMs: 10, kubeEvents };
      },
    });
    ({ world, client, agent } = h);
  });
  afterAll(() => h.stop());

  const checkpoint = async (): Promise<Checkpoint> => {
    const cp = await h.checkpointOf(key);
    if (cp === undefined) throw new Error('no checkpoint yet');
    return cp;
  };
  const stepStatus = (cp: Checkpoint, phase: string, step: string): string | undefined => cp.active?.phases.find((p) => p.name === phase)?.steps.find((s) => s.name === step)?.state.status;
  const waitFor = async (what: string, cond: (cp: Checkpoint) => boolean): Promise<Checkpoint> => {
    await until(async () => cond(await checkpoint().catch(() => undefined as unknown as Checkpoint) ?? ({} as Checkpoint)), 30_000, what);
    return checkpoint();
  };
  const request = (r: RequestInput): Promise<string> => h.request(key, r);
  const statusInGit = (): Promise<InstanceStatus> => h.statusInGit(key);
  /** Commits naming the request, with their trailers. */
  const commitsOf = (id: string): string[] => world.user.git('log', '--format=%H', `--grep=Baton-Request: ${id}`).split('\n').filter(Boolean);
  const trailer = (sha: string, name: string): string => world.user.git('log', '-1', `--format=%(trailers:key=${name},valueonly)`, sha).trim();
  const settle = async (): Promise<void> => { await agent.pass({ wait: false }); };

  it('GIVEN a deploy blocked on its gate WHEN a pause is committed THEN the running step stops, the plan is PAUSED, recorded once with who and why', async () => {
    await settle();
    await waitFor('the gate step running', (cp) => stepStatus(cp, 'two', 'gate') === 'IN_PROGRESS');
    const id = await request({ action: 'pause', plan: 'deploy', reason: 'disk alarm on node-2', args: {} });
    await settle();
    const cp = await waitFor('the plan paused', (c) => c.active?.state.status === 'PAUSED');
    expect(cp.handledRequests).toContain(id);
    // Nothing more starts: the step after the gate never ran.
    expect(stepStatus(cp, 'three', 'after')).toBe('PENDING');
    const status = await statusInGit();
    expect(status).toMatchObject({ state: 'PAUSED', sync: { status: 'Paused' }, currentPlan: { plan: 'deploy', state: { status: 'PAUSED', paused: { by: 'Ada <ada@example.com>', reason: 'disk alarm on node-2' } } } });
    expect(status.sync?.message).toContain('baton plan resume ops/ctl --plan deploy');
    expect(status.requests?.[0]).toMatchObject({ id, action: 'pause', result: 'done', event: 'plan-paused', by: 'Ada <ada@example.com>', reason: 'disk alarm on node-2', via: 'git' });
    const recorded = commitsOf(id);
    // The request commit itself, and exactly one transition commit of the agent.
    const agentCommits = recorded.filter((sha) => trailer(sha, 'Baton-Event') === 'plan-paused');
    expect(agentCommits).toHaveLength(1);
    expect(trailer(agentCommits[0]!, 'Baton-Requested-By')).toBe('Ada <ada@example.com>');
    expect(trailer(agentCommits[0]!, 'Baton-Reason')).toBe('disk alarm on node-2');
    expect(trailer(agentCommits[0]!, 'Baton-Action')).toBe('pause');
    // Another pass does not resume it, nor record the pause again.
    await agent.pass();
    expect((await checkpoint()).active?.state.status).toBe('PAUSED');
    expect(commitsOf(id).filter((sha) => trailer(sha, 'Baton-Event') === 'plan-paused')).toHaveLength(1);
    await kubeEvents.flush();
    const events = await client.list('v1', 'Event', 'ops');
    expect(events.items.map((e) => String(e['message']))).toEqual(expect.arrayContaining([expect.stringMatching(/plan deploy paused.*by Ada <ada@example\.com> \(disk alarm on node-2\)/)]));
  });

  it('GIVEN a paused plan WHEN a new desired state is committed THEN it waits for the resume; WHEN resumed THEN the plan runs on', async () => {
    await h.push({ 'instances/ops/ctl.yaml': ctlInstance([], 'v2') }, 'new value while paused');
    await agent.pass();
    expect((await checkpoint()).active?.state.status).toBe('PAUSED');
    expect((await statusInGit()).state).toBe('PAUSED');
    await request({ action: 'resume', plan: 'deploy', args: {} });
    await settle();
    // The newer desired state supersedes the resumed plan; its deploy reaches the gate again.
    await waitFor('the new deploy at its gate', (cp) => cp.active?.state.status === 'IN_PROGRESS' && stepStatus(cp, 'two', 'gate') === 'IN_PROGRESS' && cp.target?.values['VALUE'] === '"v2"');
  });

  it('GIVEN a step stuck on its gate WHEN force-complete is committed with a reason THEN the step is marked done without running and the plan completes', async () => {
    const id = await request({ action: 'force-complete', plan: 'deploy', phase: 'two', step: 'gate', reason: 'gate checked by hand', args: {} });
    await settle();
    const cp = await waitFor('the plan complete', (c) => c.active?.state.status === 'COMPLETE');
    const gate = cp.active?.phases[1]?.steps[0]?.state;
    expect(gate).toMatchObject({ status: 'COMPLETE', forced: { reason: 'gate checked by hand', by: 'Ada <ada@example.com>', requestId: id } });
    expect(stepStatus(cp, 'three', 'after')).toBe('COMPLETE');
    const status = await statusInGit();
    expect(status.state).toBe('COMPLETE');
    expect(status.requests?.[0]).toMatchObject({ id, event: 'step-force-completed', phase: 'two', step: 'gate' });
    expect(commitsOf(id).filter((sha) => trailer(sha, 'Baton-Event') === 'step-force-completed')).toHaveLength(1);
  });

  it.each([
    ['a resume of a plan that is not paused', { action: 'resume', plan: 'deploy' }, 'PLAN_NOT_RUNNING'],
    ['a force-complete of a completed step', { action: 'force-complete', plan: 'deploy', phase: 'one', step: 'config', reason: 'why not' }, 'STEP_COMPLETE'],
    ['an unknown plan', { action: 'restart', plan: 'nosuch' }, 'PLAN_UNKNOWN'],
    ['an unknown step', { action: 'restart', plan: 'deploy', phase: 'two', step: 'nosuch' }, 'STEP_UNKNOWN'],
  ] as const)('GIVEN %s WHEN committed THEN the agent records a refusal naming it and nothing running is disturbed', async (_name, r, code) => {
    const before = await checkpoint();
    const id = await request({ ...r, args: {} });
    await agent.pass();
    const after = await checkpoint();
    expect(after.active?.id).toBe(before.active?.id);
    expect(after.active?.state.status).toBe(before.active?.state.status);
    const status = await statusInGit();
    expect(status.requests?.[0]).toMatchObject({ id, result: 'refused', code, event: 'request-refused' });
    expect(status.state).toBe('COMPLETE');
    const refused = commitsOf(id).filter((sha) => trailer(sha, 'Baton-Event') === 'request-refused');
    expect(refused).toHaveLength(1);
  });

  it('GIVEN two conflicting requests in one commit WHEN the agent sees them THEN both are refused as a conflict and nothing changes', async () => {
    await world.user.pull();
    const text = world.user.git('show', 'HEAD:requests/ops/ctl.yaml');
    const { parseRequestFile } = await import('../../src/sync/request-file.js');
    const existing = parseRequestFile(text, 'requests/ops/ctl.yaml');
    world.user.write('requests/ops/ctl.yaml', formatRequests([...existing, { id: 'c-1', action: 'restart', plan: 'deploy', args: {} }, { id: 'c-2', action: 'stop', plan: 'deploy', args: {} }]));
    world.user.commit('two requests at once');
    await world.user.push();
    const before = await checkpoint();
    await agent.pass();
    const after = await checkpoint();
    expect(after.active?.id).toBe(before.active?.id);
    const status = await statusInGit();
    expect(status.requests?.slice(0, 2).map((r) => [r.id, r.code])).toEqual([['c-2', 'REQUEST_CONFLICT'], ['c-1', 'REQUEST_CONFLICT']]);
    expect(status.requests?.[0]?.message).toMatch(/c-1 \(restart\), c-2 \(stop\) for plan deploy arrived together and conflict/);
  });

  it('GIVEN a completed deploy WHEN phase one is restarted THEN a new run re-runs only that phase and completes', async () => {
    const id = await request({ action: 'restart', plan: 'deploy', phase: 'one', args: {} });
    const before = await checkpoint();
    await agent.pass();
    const cp = await checkpoint();
    expect(cp.active?.id).not.toBe(before.active?.id);
    expect(cp.active?.state.status).toBe('COMPLETE');
    expect(cp.active?.phases.map((p) => [p.name, p.state.status === 'COMPLETE' && 'carriedFrom' in p.state && p.state.carriedFrom !== undefined])).toEqual([['one', false], ['two', true], ['three', true]]);
    expect((await statusInGit()).requests?.[0]).toMatchObject({ id, event: 'plan-restarted', runId: cp.active?.id });
  });

  it('GIVEN a serial-canary rollout WHEN triggered THEN it waits after the first and second step for continue, then runs the rest', async () => {
    await request({ action: 'trigger', plan: 'rollout', args: {} });
    await agent.pass();
    let cp = await checkpoint();
    expect(cp.active?.state).toMatchObject({ status: 'WAITING', waits: [{ phase: 'nodes', after: 'a', continues: 1 }] });
    expect(cp.active?.phases[0]?.steps.map((s) => s.state.status)).toEqual(['COMPLETE', 'PENDING', 'PENDING', 'PENDING']);
    let status = await statusInGit();
    expect(status).toMatchObject({ state: 'WAITING', sync: { status: 'Waiting' } });
    expect(status.sync?.message).toContain('waits after step a of phase nodes (canary); continue with `baton plan continue ops/ctl --plan rollout`');
    // Nothing starts by itself.
    await agent.pass();
    expect((await checkpoint()).active?.phases[0]?.steps[1]?.state.status).toBe('PENDING');
    await request({ action: 'continue', plan: 'rollout', args: {} });
    await agent.pass();
    cp = await checkpoint();
    expect(cp.active?.state).toMatchObject({ status: 'WAITING', waits: [{ after: 'b', continues: 2 }] });
    await request({ action: 'continue', plan: 'rollout', args: {} });
    await agent.pass();
    cp = await checkpoint();
    expect(cp.active?.state.status).toBe('COMPLETE');
    expect(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ops', name: 'ctl-node-d' })).toBeDefined();
    status = await statusInGit();
    const waits = world.user.git('log', '--format=%s', '--grep=Baton-Event: plan-waiting').split('\n').filter(Boolean);
    expect(waits).toHaveLength(2);
    expect(status.state).toBe('COMPLETE');
  });

  it('GIVEN a running plan WHEN stopped THEN it ends STOPPED with its state kept; WHEN retried THEN completed steps are not run again', async () => {
    await h.push({ 'instances/ops/ctl.yaml': ctlInstance([], 'v3') }, 'v3');
    await settle();
    await waitFor('the v3 deploy at its gate', (cp) => cp.target?.values['VALUE'] === '"v3"' && stepStatus(cp, 'two', 'gate') === 'IN_PROGRESS');
    await request({ action: 'stop', reason: 'wrong window', args: {} });
    await settle();
    const stopped = await waitFor('the plan stopped', (cp) => cp.active?.state.status === 'STOPPED');
    expect(stepStatus(stopped, 'one', 'config')).toBe('COMPLETE');
    const status = await statusInGit();
    expect(status).toMatchObject({ state: 'STOPPED', sync: { status: 'Stopped' } });
    await agent.pass();
    expect((await checkpoint()).active?.id).toBe(stopped.active?.id);
    await request({ action: 'retry', args: {} });
    await settle();
    const retried = await waitFor('the retry at its gate', (cp) => cp.active?.id !== stopped.active?.id && stepStatus(cp, 'two', 'gate') === 'IN_PROGRESS');
    const config = retried.active?.phases[0]?.steps[0]?.state;
    expect(config).toMatchObject({ status: 'COMPLETE', carriedFrom: stopped.active?.id });
    expect(retried.target?.runId).toBe(retried.active?.id);
    await request({ action: 'force-complete', phase: 'two', step: 'gate', reason: 'done by hand', args: {} });
    await settle();
    await waitFor('the retried plan complete', (cp) => cp.active?.state.status === 'COMPLETE');
    expect((await statusInGit()).sync?.status).toBe('Synced');
  });

  it('GIVEN suspend: true WHEN a new value is committed THEN nothing is applied and status says suspended since when; WHEN unsuspended THEN it is applied', async () => {
    await h.push({ 'instances/ops/ctl.yaml': ctlInstance(['suspend: true'], 'v3') }, 'suspend');
    await agent.pass();
    const status = await statusInGit();
    expect(status).toMatchObject({ state: 'SUSPENDED', sync: { status: 'Suspended' }, suspended: { since: expect.any(String) } });
    await h.push({ 'instances/ops/ctl.yaml': ctlInstance(['suspend: true'], 'v4') }, 'a change while suspended');
    await agent.pass();
    const still = await statusInGit();
    expect(still.suspended?.since).toBe(status.suspended?.since);
    const live = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ops', name: 'ctl' });
    expect((live?.['data'] as Record<string, string>)['value']).toBe('v3');
    expect(world.user.git('log', '--format=%s', '--grep=Baton-Event: suspended').split('\n').filter(Boolean)).toHaveLength(1);
    await h.push({ 'instances/ops/ctl.yaml': ctlInstance([], 'v4') }, 'unsuspend');
    await settle();
    await waitFor('the v4 deploy at its gate', (cp) => cp.target?.values['VALUE'] === '"v4"' && stepStatus(cp, 'two', 'gate') === 'IN_PROGRESS');
    const after = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ops', name: 'ctl' });
    expect((after?.['data'] as Record<string, string>)['value']).toBe('v4');
    expect((await statusInGit()).suspended).toBeUndefined();
  });

  it('THEN the history has every run started once and ended at most once, and every request recorded once', async () => {
    await agent.writer.flush();
    const check = checkHistory(world.sandbox.env, world.origin, { instances: ['ops/ctl'] });
    expect(check.defects).toEqual([]);
    await world.user.pull();
    const ids = world.user.git('log', '--format=%(trailers:key=Baton-Request,valueonly)', '--', 'status/ops/ctl.yaml').split('\n').map((l) => l.trim()).filter(Boolean);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
