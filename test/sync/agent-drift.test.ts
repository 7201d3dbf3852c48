/**
 * The agent holds the cluster to Git (issue #12): drift found and repaired as its own recorded run,
 * the report-only policy, a deleted namespace, a failed desired state that a later backup does not
 * hide and that a new commit retries, and the per-instance metrics, on a Git repository and the
 * simulated cluster, with kubectl as the person changing things out of band.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { Renderer } from '../../src/render/index.js';
import { DriftKeeper } from '../../src/drift/index.js';
import type { Agent, PassReport } from '../../src/sync/agent.js';
import { trackingRef } from '../../src/git/mirror.js';
import { readHistory } from '../../src/sync/history.js';
import { AgentMetrics } from '../../src/sync/metrics.js';
import { formatRequest } from '../../src/sync/request-file.js';
import { parseStatus, type InstanceStatus } from '../../src/sync/status-file.js';
import { agentWorld, mirrorOf, testAgent, type AgentWorld } from './fixtures.js';
import { runBaton } from '../helpers/agent-harness.js';
import { svcFramework, svcInstance } from '../drift/svc-framework.js';

describe('the agent keeps the cluster at the desired state', () => {
  let world: AgentWorld;
  let client: HttpKubeClient;
  let renderer: Renderer;
  let agent: Agent;
  let drift: DriftKeeper;

  beforeAll(async () => {
    world = await agentWorld();
    client = await createKubeClient({ url: world.cluster.url });
    renderer = new Renderer();
    for (const [path, text] of Object.entries(svcFramework())) world.user.write(path, text);
    world.user.write('instances/heal/site.yaml', svcInstance());
    world.user.write('instances/watch/site.yaml', svcInstance({}, 'sync: { selfHeal: report }'));
    world.user.write('instances/gone/site.yaml', svcInstance());
    world.user.write('instances/broken/db.yaml', svcInstance());
    world.user.write('instances/moved/site.yaml', svcInstance());
    world.user.commit('five svc instances');
    await world.user.push();
    drift = new DriftKeeper({ client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(client) });
    agent = testAgent(mirrorOf(world), client, renderer, { drift, coalesceMs: 20 });
    await agent.start();
    const first = await agent.pass();
    expect(Object.fromEntries(first.reports.map((r) => [r.instance, r.outcome.kind]))).toEqual({ 'heal/site': 'complete', 'watch/site': 'complete', 'gone/site': 'complete', 'broken/db': 'complete', 'moved/site': 'complete' });
  });
  afterAll(async () => {
    await agent.stop();
    await renderer.close();
    client.close();
    await world.stop();
  });

  const statusOf = async (ns: string, name = 'site'): Promise<InstanceStatus> => {
    await world.user.pull();
    return parseStatus(world.user.git('show', `HEAD:status/${ns}/${name}.yaml`), `${ns}/${name}`);
  };
  const kubectl = async (...args: string[]): Promise<void> => {
    const r = await world.cluster.kubectl(args);
    expect(r.code, r.stderr).toBe(0);
  };
  const outcomes = (r: PassReport): Record<string, string> => Object.fromEntries(r.reports.map((x) => [x.instance, `${x.outcome.kind}${'plan' in x.outcome ? ` ${x.outcome.plan}` : ''}`]));

  it('GIVEN a deleted Service and PodDisruptionBudget WHEN the agent checks drift THEN it re-creates only them, recorded as a repair run naming them, and the status says InSync again', async () => {
    await kubectl('-n', 'heal', 'delete', 'service', 'site');
    await kubectl('-n', 'heal', 'delete', 'pdb', 'site');
    const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'heal', name: 'site-config' });
    const report = await agent.pass({ drift: 'all' });
    expect(outcomes(report)).toEqual({ 'heal/site': 'complete repair' });
    expect(await client.get({ apiVersion: 'v1', kind: 'Service', namespace: 'heal', name: 'site' })).toBeDefined();
    expect(await client.get({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: 'heal', name: 'site' })).toBeDefined();
    // Only what drifted was re-applied: the ConfigMap is untouched.
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'heal', name: 'site-config' }))?.metadata.resourceVersion).toBe(cm?.metadata.resourceVersion);

    const status = await statusOf('heal');
    expect(status.state).toBe('COMPLETE');
    expect(status.sync?.status).toBe('Synced');
    expect(status.drift).toMatchObject({ status: 'InSync', policy: 'repair', lastRepair: { result: 'COMPLETE', objects: 'PodDisruptionBudget heal/site missing, Service heal/site missing' } });
    expect(status.plans?.['repair']?.state.status).toBe('COMPLETE');
    // The repair is its own run in Git: started, then complete, each naming the drifted objects.
    const reader = mirrorOf(world, 'reader');
    await reader.init();
    await reader.fetch('main');
    const history = await readHistory(reader, { ref: trackingRef('main'), instance: 'heal/site' });
    const repairs = history.filter((h) => h.plan === 'repair');
    expect(repairs.map((h) => h.event).reverse()).toEqual(['plan-started', 'plan-complete']);
    expect(new Set(repairs.map((h) => h.runId)).size).toBe(1);
    expect(repairs[0]?.driftObjects).toEqual(['PodDisruptionBudget heal/site missing', 'Service heal/site missing']);
    // The completed repair re-created the objects and waited on their gates: its commit and the status do
    // not claim they are still Missing (they did before: the health of the sweep that found the drift).
    expect(repairs[0]?.health).toBe('Healthy');
    expect(status.health?.status).toBe('Healthy');
    expect(history.find((h) => h.event === 'drift-checked')?.summary).toBe('heal/site: drift: PodDisruptionBudget heal/site missing; Service heal/site missing; health Missing');
  });

  it('GIVEN self-heal policy report WHEN an object is deleted THEN the drift and the Missing health are reported, nothing is re-created', async () => {
    await kubectl('-n', 'watch', 'delete', 'service', 'site');
    const report = await agent.pass({ drift: 'all' });
    expect(outcomes(report)).toEqual({});
    expect(await client.get({ apiVersion: 'v1', kind: 'Service', namespace: 'watch', name: 'site' })).toBeUndefined();
    const status = await statusOf('watch');
    expect(status.drift).toMatchObject({ status: 'Drifted', policy: 'report', objects: [{ object: 'Service watch/site', reason: 'missing', action: 'repair' }] });
    expect(status.health).toMatchObject({ status: 'Missing', objects: [{ object: 'Service watch/site', status: 'Missing' }] });
    // The plan state is still the truth about plans: the desired state was applied.
    expect(status.sync?.status).toBe('Synced');
    // Nothing new: the next check writes no commit.
    const head = world.user.git('rev-parse', 'HEAD');
    await agent.pass({ drift: 'all' });
    await world.user.pull();
    expect(world.user.git('rev-parse', 'HEAD')).toBe(head);
  });

  it('GIVEN the namespace of an instance deleted WHEN the agent checks drift THEN it deploys the instance again', async () => {
    await kubectl('delete', 'namespace', 'gone', '--wait=true');
    const report = await agent.pass({ drift: 'all' });
    expect(outcomes(report)).toEqual({ 'gone/site': 'complete deploy' });
    expect(await client.get({ apiVersion: 'v1', kind: 'Service', namespace: 'gone', name: 'site' })).toBeDefined();
    expect((await statusOf('gone')).sync?.status).toBe('Synced');
  });

  it('GIVEN an update that failed and a backup that completed after it THEN the status stays FATAL_ERROR with sync Failed; a new commit retries it', async () => {
    await world.user.pull();
    world.user.write('instances/broken/db.yaml', svcInstance({ SERVICE_TYPE: 'Bogus' }));
    world.user.commit('db: a service type the API refuses');
    await world.user.push();
    expect(outcomes(await agent.pass())).toEqual({ 'broken/db': 'failed deploy' });

    await world.user.pull();
    world.user.write('requests/broken/db.yaml', formatRequest({ id: 'r-backup-1', plan: 'backup', args: { LABEL: 'nightly' }, requestedAt: new Date().toISOString() }));
    world.user.commit('request a backup of db');
    await world.user.push();
    // The requested backup runs; the new commit also retries the failed deploy once, on the next pass (it fails again).
    expect(outcomes(await agent.pass())).toEqual({ 'broken/db': 'complete backup' });
    expect(outcomes(await agent.pass())).toEqual({ 'broken/db': 'failed deploy' });
    expect((await agent.pass()).reports).toEqual([]);

    const status = await statusOf('broken', 'db');
    expect(status.state).toBe('FATAL_ERROR');
    expect(status.sync).toMatchObject({ status: 'Failed', failure: { plan: 'deploy', phase: 'main', step: 'app', attempts: 2, code: 'KUBE_INVALID' }, lastApplied: { plan: 'deploy' } });
    expect(status.sync?.failure?.nextRetryAt).toMatch(/^\d{4}-/);
    expect(status.plans?.['backup']?.state.status).toBe('COMPLETE');
    expect(status.plans?.['deploy']?.state.status).toBe('FATAL_ERROR');
    // The Service still has the type the last applied state gave it.
    expect((await client.get({ apiVersion: 'v1', kind: 'Service', namespace: 'broken', name: 'db' }))?.['spec']).toMatchObject({ type: 'ClusterIP' });

    // Fixed in Git: applied, and the status is true again.
    await world.user.pull();
    world.user.write('instances/broken/db.yaml', svcInstance({ SERVICE_TYPE: 'NodePort' }));
    world.user.commit('db: a valid service type');
    await world.user.push();
    expect(outcomes(await agent.pass())).toEqual({ 'broken/db': 'complete deploy' });
    expect(await statusOf('broken', 'db')).toMatchObject({ state: 'COMPLETE', sync: { status: 'Synced' } });
  });

  it('GIVEN a repair decided for one applied state WHEN a plan applies a newer desired state before the repair runs THEN the repair re-applies nothing and Git records no repair (issue #20 follow-up)', async () => {
    await kubectl('-n', 'moved', 'patch', 'configmap', 'site-config', '--type=merge', '-p', '{"data":{"greeting":"edited"}}');
    const repair = drift.repair.bind(drift);
    // The repair's worker waits (for a running plan, a worker slot, a shard member's handover); meanwhile a
    // plan of a newer desired state runs: here `baton apply` of the instance file with a new greeting.
    drift.repair = async (...args) => {
      drift.repair = repair;
      world.user.write('instances/moved/site.yaml', svcInstance({ GREETING: 'bonjour' }));
      const applied = await runBaton(['apply', '--kubeconfig', world.cluster.kubeconfigPath, '--no-events', 'instances/moved/site.yaml'], world.user.dir);
      expect(applied.code, applied.err).toBe(0);
      return repair(...args);
    };
    try {
      const report = await agent.pass({ drift: 'all' });
      expect(outcomes(report)).toEqual({ 'moved/site': 'nothing' });
    } finally {
      drift.repair = repair;
      world.user.git('checkout', '--', 'instances/moved/site.yaml');
    }
    // The newer desired state stays; the checkpoint holds no repair run, and Git no repair transition.
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'moved', name: 'site-config' }))?.['data']).toEqual({ greeting: 'bonjour' });
    expect((await new ConfigMapCheckpointStore(client).load({ namespace: 'moved', name: 'site' }))?.checkpoint.repair).toBeUndefined();
    const reader = mirrorOf(world, 'reader-moved');
    await reader.init();
    await reader.fetch('main');
    const history = await readHistory(reader, { ref: trackingRef('main'), instance: 'moved/site' });
    expect(history.filter((h) => h.plan === 'repair')).toEqual([]);
  });

  it('exposes each instance in metrics: info, sync, health and drifted objects', async () => {
    const metrics = new AgentMetrics();
    metrics.instances(agent.instanceStatuses());
    const text = await metrics.registry.metrics();
    expect(text).toContain('baton_instance_info{namespace="heal",instance="site",framework="svc",version="1.0.0"} 1');
    expect(text).toContain('baton_instance_sync_status{namespace="broken",instance="db",status="Synced"} 1');
    expect(text).toContain('baton_instance_health_status{namespace="watch",instance="site",status="Missing"} 1');
    expect(text).toContain('baton_instance_drifted_objects{namespace="watch",instance="site"} 1');
  });
});
