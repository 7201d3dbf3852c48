import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import type { Agent } from '../../src/sync/agent.js';
import { formatRequest } from '../../src/sync/request-file.js';
import { parseStatus } from '../../src/sync/status-file.js';
import type { WorkClone } from '../helpers/git-server.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { instance, outcomeKinds } from './fixtures.js';

describe('the agent against a Git repository and the simulated cluster', () => {
  let h: AgentHarness;
  let client: HttpKubeClient;
  let user: WorkClone;
  let agent: Agent;
  const engineEvents: string[] = [];

  beforeAll(async () => {
    h = await startAgentHarness({
      files: { 'instances/shop/site.yaml': instance({ VALUE: 'one' }), 'instances/shop/blog.yaml': instance() },
      message: 'two web instances',
      agent: { coalesceMs: 20, onEngineEvent: (e) => engineEvents.push(`${e.instance.name}:${e.type}`) },
    });
    ({ client, user, agent } = h);
  });
  afterAll(() => h.stop());

  const statusOf = async (name: string): Promise<ReturnType<typeof parseStatus>> => {
    await user.pull();
    return parseStatus(user.git('show', `HEAD:status/shop/${name}.yaml`), name);
  };
  const configMap = async (name: string): Promise<Record<string, string> | undefined> =>
    (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name }))?.data as Record<string, string> | undefined;

  it('GIVEN new instance files WHEN the agent polls THEN each deploys and its status is committed with trailers', async () => {
    const report = await agent.pass();
    expect(outcomeKinds(report)).toEqual({ 'shop/site': 'complete', 'shop/blog': 'complete' });
    // Engine progress reaches the agent's subscribers (the step-duration metric).
    expect(engineEvents).toEqual(expect.arrayContaining(['site:step-started', 'site:step-complete', 'blog:plan-complete']));
    expect(await configMap('site')).toMatchObject({ value: 'one' });
    const status = await statusOf('site');
    expect(status).toMatchObject({ state: 'COMPLETE', framework: { name: 'web', version: '1.0.0' }, currentPlan: { plan: 'deploy' } });
    expect(status.inventory).toContain('v1/ConfigMap/shop/site');
    expect(user.git('log', '--format=%s', '-10')).toContain('shop/site: deploy COMPLETE in');
    expect(user.git('log', '-1', '--format=%(trailers:key=Baton-Instance,valueonly)', '--', 'status/shop/site.yaml')).toBe('shop/site');
    // Sensitive values never reach status.
    expect(user.git('show', 'HEAD:status/shop/site.yaml')).not.toContain('hunter2-secret');
  });

  it('GIVEN only the agent own status commits since WHEN it polls again THEN nothing runs and nothing is committed', async () => {
    const before = user.git('rev-parse', 'HEAD');
    const report = await agent.pass();
    expect(report.reports).toEqual([]);
    await user.pull();
    expect(user.git('rev-parse', 'HEAD')).toBe(before);
  });

  it('GIVEN a change to one instance and a bad value in another WHEN polled THEN the good one runs, the bad one is refused in its status', async () => {
    await user.pull();
    user.write('instances/shop/site.yaml', instance({ VALUE: 'two' }));
    user.write('instances/shop/blog.yaml', instance({ REPLICAS: 0 }));
    user.commit('site value two; blog broken');
    await user.push();
    const report = await agent.pass();
    expect(outcomeKinds(report)).toEqual({ 'shop/site': 'complete', 'shop/blog': 'refused' });
    expect(await configMap('site')).toMatchObject({ value: 'two' });
    const blog = await statusOf('blog');
    expect(blog.state).toBe('REFUSED');
    expect(blog.refusal?.message).toContain('REPLICAS');
    expect(blog.refusal?.message).toContain('instances/shop/blog.yaml');
  });

  it('GIVEN a plan requested through a commit WHEN polled twice THEN it runs once with its one-shot argument', async () => {
    await user.pull();
    user.write('requests/shop/site.yaml', formatRequest({ id: 'r-1', plan: 'backup', args: { LABEL: 'nightly' }, requestedAt: new Date().toISOString() }));
    user.commit('request backup of site');
    await user.push();
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'complete' });
    const status = await statusOf('site');
    expect(status.currentPlan).toMatchObject({ plan: 'backup', args: { LABEL: 'nightly' }, state: { status: 'COMPLETE' } });
    expect(status.handledRequests).toContain('r-1');
    expect((await agent.pass()).reports).toEqual([]);
  });

  it('GIVEN an instance file removed WHEN polled THEN its objects are deleted and its status file removed', async () => {
    await user.pull();
    user.remove('instances/shop/site.yaml');
    user.commit('remove site');
    await user.push();
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/site': 'removed' });
    expect(await configMap('site')).toBeUndefined();
    await user.pull();
    expect(() => user.git('show', 'HEAD:status/shop/site.yaml')).toThrow();
    expect(user.git('log', '-1', '--format=%s', '--', 'status/shop/site.yaml')).toBe('shop/site: removed');
  });
});
