/**
 * Issue 20 (CPU and wall time per instance): every API round trip of an instance's deploy costs the
 * agent and the API server alike. GIVEN a new instance of the `web` framework (one step applying a
 * ConfigMap) WHEN the agent runs its deploy through a recording proxy THEN the calls are the ones the
 * run needs and no more: its checkpoint is read once (not again by the engine, nor after the plan),
 * written once per transition and once per step start (a phase's start and a step's end ride with
 * the next write), and an object whose apply answer already passes its gate is not listed or watched.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { DriftKeeper } from '../../src/drift/index.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { Agent } from '../../src/sync/agent.js';
import { startRepoHarness, type RepoHarness } from '../helpers/agent-harness.js';
import { recordingProxy, type RecordedRequest, type RecordingProxy } from '../helpers/recording-proxy.js';
import { instance, mirrorOf, outcomeKinds, testAgent } from './fixtures.js';
import { until } from '../helpers/wait.js';

/** `GET /api/v1/namespaces/shop/configmaps/baton-checkpoint-a` with its query left out. */
const route = (r: RecordedRequest): string => `${r.method} ${r.path.split('?')[0] ?? ''}${/[?&]watch=(1|true)/.test(r.path) ? ' (watch)' : ''}`;

describe('the API calls of one instance deploy', () => {
  let h: RepoHarness;
  let proxy: RecordingProxy;
  let client: HttpKubeClient;
  let agent: Agent;

  beforeAll(async () => {
    h = await startRepoHarness({ files: { 'instances/shop/a.yaml': instance({ VALUE: 'one' }) }, message: 'instance a' });
    proxy = await recordingProxy(h.clusters[0]?.url ?? '');
    client = await createKubeClient({ kubeconfigPath: proxy.kubeconfig(join(h.world.sandbox.dir, 'proxy-kubeconfig')) });
    agent = testAgent(mirrorOf(h.world), client, h.renderer);
    await agent.start();
  }, 60_000);
  afterAll(async () => {
    await agent.stop();
    client.close();
    await proxy.close();
    await h.stop();
  });

  it('GIVEN a new instance of one ConfigMap step WHEN the agent deploys it THEN its checkpoint is read once and the ready ConfigMap is not listed or watched', async () => {
    proxy.requests.length = 0;
    expect(outcomeKinds(await agent.pass())).toEqual({ 'shop/a': 'complete' });
    await agent.drain();
    const calls = proxy.requests.map(route);
    const count = (r: string): number => calls.filter((c) => c === r).length;
    // Before: read by the instance run, again by the engine, and again after the plan.
    expect(count('GET /api/v1/namespaces/shop/configmaps/baton-checkpoint-a')).toBe(1);
    // Before: a list (and a watch when the list did not show it ready) of the ConfigMap the apply had just answered.
    expect(calls.filter((c) => c.startsWith('GET /api/v1/namespaces/shop/configmaps') && !c.includes('/configmaps/'))).toEqual([]);
    // Before: 7 (the new run, plan started, phase started, step started, step complete, phase complete,
    // plan complete), then 4. Now: the run, its phase and its step started (before the apply); the
    // step, the phase and the plan complete.
    expect(count('POST /api/v1/namespaces/shop/configmaps') + count('PUT /api/v1/namespaces/shop/configmaps/baton-checkpoint-a')).toBe(2);
    // The apply itself, and the ownership read before it, still happen.
    expect(count('PATCH /api/v1/namespaces/shop/configmaps/a')).toBe(1);
    expect(count('GET /api/v1/namespaces/shop/configmaps/a')).toBe(1);
  });
});

/** An agent with a drift keeper over `files`, its API calls recorded, every instance deployed. */
function deployedWithDrift(files: Record<string, string>, sliceSize?: number): { h: RepoHarness; proxy: RecordingProxy; agent: Agent } {
  const world = {} as { h: RepoHarness; proxy: RecordingProxy; agent: Agent };
  let client: HttpKubeClient;
  beforeAll(async () => {
    world.h = await startRepoHarness({ files, message: Object.keys(files).join(', ') });
    world.proxy = await recordingProxy(world.h.clusters[0]?.url ?? '');
    client = await createKubeClient({ kubeconfigPath: world.proxy.kubeconfig(join(world.h.world.sandbox.dir, 'proxy-kubeconfig')) });
    const drift = new DriftKeeper({ client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client), ...(sliceSize !== undefined ? { sliceSize } : {}) });
    world.agent = testAgent(mirrorOf(world.h.world), client, world.h.renderer, { drift });
    await world.agent.start();
    const ids = Object.keys(files).map((f) => f.replace(/^instances\/(.*)\.yaml$/, '$1'));
    expect(outcomeKinds(await world.agent.pass())).toEqual(Object.fromEntries(ids.map((id) => [id, 'complete'])));
    await world.agent.drain();
  }, 60_000);
  afterAll(async () => {
    await world.agent.stop();
    client.close();
    await world.proxy.close();
    await world.h.stop();
  });
  return world;
}

describe('the API calls of the drift check after a deploy', () => {
  const w = deployedWithDrift({ 'instances/shop/b.yaml': instance({ VALUE: 'one' }) });

  it('GIVEN a deployed instance WHEN its drift is checked THEN the checkpoint the sweep listed is used, not read again', async () => {
    w.proxy.requests.length = 0;
    await w.agent.pass({ drift: 'all' });
    await w.agent.drain();
    const calls = w.proxy.requests.map(route);
    // The sweep lists checkpoints (and the objects) ...
    expect(calls.filter((c) => /^GET \/api\/v1\/(namespaces\/[^/]+\/)?configmaps$/.test(c)).length).toBeGreaterThan(0);
    // ... and its result is recorded: health Healthy, no drift.
    await until(async () => (await w.h.statusOf('shop/b'))?.drift?.status === 'InSync', 20_000, 'the drift check recorded');
    // Before: the drift loop read the checkpoint once more per instance to record the check.
    expect(calls.filter((c) => c === 'GET /api/v1/namespaces/shop/configmaps/baton-checkpoint-b')).toEqual([]);
  });
});

describe('the API calls of a drift check swept in slices', () => {
  // One instance per slice: the check is two sweeps, as with more than DRIFT_SWEEP_SLICE instances due.
  const w = deployedWithDrift({ 'instances/shop/c.yaml': instance({ VALUE: 'one' }), 'instances/shop/d.yaml': instance({ VALUE: 'two' }) }, 1);

  it('GIVEN two deployed instances swept in two slices WHEN their drift is checked THEN each slice is recorded with the checkpoints its sweep listed, none read again', async () => {
    w.proxy.requests.length = 0;
    await w.agent.pass({ drift: 'all' });
    await w.agent.drain();
    await until(async () => (await w.h.statusOf('shop/c'))?.drift?.status === 'InSync' && (await w.h.statusOf('shop/d'))?.drift?.status === 'InSync', 20_000, 'both drift checks recorded');
    const calls = w.proxy.requests.map(route);
    // Before: a report of several slices dropped their checkpoints, and the loop read each one again.
    expect(calls.filter((c) => /^GET \/api\/v1\/namespaces\/shop\/configmaps\/baton-checkpoint-/.test(c))).toEqual([]);
  });
});
