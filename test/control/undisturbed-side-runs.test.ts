/**
 * Issue #13, "nothing already running is disturbed", for the work that is not a plan: a drift repair
 * of the instance runs (its readiness wait holds until the test releases the gate) when a request
 * commit arrives (a refused resume, then a trigger). The repair is not interrupted: it goes on to
 * COMPLETE as one run; the requests are carried out after it (the refusal recorded once, the
 * triggered plan run after the repair), never by superseding it. The same for a pod action the agent
 * carries out from a Git request (a `pod-restart` waiting for its pod to be Ready again): it ends once,
 * COMPLETE, and the requests committed meanwhile are carried out after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriftKeeper } from '../../src/drift/index.js';
import type { HttpKubeClient } from '../../src/kube/http-client.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { ANNOTATION_OWNER } from '../../src/render/labels.js';
import type { Agent } from '../../src/sync/agent.js';
import type { RequestInput } from '../../src/sync/request-commit.js';
import type { InstanceStatus } from '../../src/sync/status-file.js';
import { checkHistory } from '../helpers/transitions.js';
import { until } from '../helpers/wait.js';
import { startAgentHarness, type AgentHarness } from '../helpers/agent-harness.js';
import { API, gatedFramework, releaseGate, type AgentWorld } from '../sync/fixtures.js';

const key = { namespace: 'side', name: 'g' };
const gate = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'side', name: 'gate-g' };

describe('a request commit while a drift repair runs', () => {
  let h: AgentHarness;
  let world: AgentWorld;
  let client: HttpKubeClient;
  let agent: Agent;
  const events: EngineEvent[] = [];

  beforeAll(async () => {
    const framework = gatedFramework();
    const fwFile = 'frameworks/gated/1.0.0/framework.yaml';
    // A second plan to trigger: it applies only the ConfigMap.
    framework[fwFile] = `${(framework[fwFile] ?? '').replace('tasks:\n', 'tasks:\n  - { name: slow, kind: Apply, resources: [slow.yaml.ejs] }\n')}  mark:\n    phases:\n      - { name: one, steps: [{ name: config, tasks: [config] }] }\n  slow:\n    phases:\n      - { name: one, steps: [{ name: slow, tasks: [slow] }] }\n`;
    // The slow plan's Deployment waits on its gate like gate-g (no controller observes it).
    framework['frameworks/gated/1.0.0/templates/slow.yaml.ejs'] = (framework['frameworks/gated/1.0.0/templates/gate.yaml.ejs'] ?? '').replace('"gate-"', '"slow-"');
    h = await startAgentHarness({
      files: { ...framework, [`instances/${key.namespace}/${key.name}.yaml`]: [API, 'kind: Instance', 'framework: gated', 'version: 1.0.0', ''].join('\n') },
      message: 'a gated instance',
      agent: ({ client: c }) => ({
        drift: new DriftKeeper({ client: c, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(c) }),
        coalesceMs: 10,
        onEngineEvent: (e) => { if (e.instance.name === key.name) events.push(e); },
      }),
    });
    ({ world, client, agent } = h);
    const deployed = agent.pass();
    await releaseGate(client, key.namespace, 'gate-g');
    expect((await deployed).reports.map((r) => r.outcome.kind)).toEqual(['complete']);
  });
  afterAll(() => h.stop());

  const request = async (r: RequestInput): Promise<string> => {
    const id = await h.request(key, r);
    await agent.pass({ wait: false });
    return id;
  };
  const statusInGit = (): Promise<InstanceStatus> => h.statusInGit(key);
  const of = (type: EngineEvent['type'], plan: string): EngineEvent[] => events.filter((e) => e.type === type && 'plan' in e && e.plan === plan);

  it('GIVEN a repair waiting on its gate WHEN a refused request and then a trigger are committed THEN the repair completes as one run and the requests are carried out after it', async () => {
    // Out of band: someone scales the gate Deployment; the repair sets it back and waits for its controller.
    await client.patch(gate, { spec: { replicas: 2 } }, 'merge');
    void agent.pass({ drift: 'all', wait: false });
    await until(async () => of('step-started', 'repair').length === 1, 30_000, 'the repair applying');
    await until(async () => ((await client.get(gate))?.['spec'] as { replicas?: number } | undefined)?.replicas === 0, 30_000, 'the repair applied, waiting on its gate');

    const refused = await request({ action: 'resume', args: {} });
    const triggered = await request({ action: 'trigger', plan: 'mark', args: {} });
    // Give the agent its look at both commits; the repair is still waiting, not superseded.
    await agent.pass({ wait: false });
    expect(of('plan-superseded', 'repair')).toEqual([]);
    expect(of('plan-started', 'mark')).toEqual([]);

    await releaseGate(client, key.namespace, 'gate-g');
    await until(async () => of('plan-complete', 'repair').length === 1, 30_000, 'the repair complete');
    await until(async () => of('plan-complete', 'mark').length === 1, 30_000, 'the triggered plan run after the repair');
    expect(of('plan-superseded', 'repair')).toEqual([]);
    expect(of('plan-started', 'repair')).toHaveLength(1);
    // The triggered plan started only after the repair ended.
    const repairEnd = events.findIndex((e) => e.type === 'plan-complete' && e.plan === 'repair');
    const markStart = events.findIndex((e) => e.type === 'plan-started' && e.plan === 'mark');
    expect(markStart).toBeGreaterThan(repairEnd);

    await until(async () => (await statusInGit()).requests?.some((r) => r.id === refused) === true, 30_000, 'the refusal in Git');
    const status = await statusInGit();
    expect(status.requests?.find((r) => r.id === refused)).toMatchObject({ result: 'refused', code: 'PLAN_NOT_RUNNING', by: 'Ada <ada@example.com>' });
    expect(status.plans?.['repair']?.state.status).toBe('COMPLETE');
    const refusals = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', `--grep=Baton-Request: ${refused}`).split('\n').map((l) => l.trim()).filter((l) => l === 'request-refused');
    expect(refusals).toHaveLength(1);
    expect(world.user.git('log', '--format=%s', `--grep=Baton-Request: ${triggered}`).trim()).not.toBe('');
    expect(world.user.git('log', '--format=%s', '--grep=Baton-Event: plan-superseded', '--', 'status/side/g.yaml').trim()).toBe('');
  });

  it('GIVEN a plan running WHEN a pod request is committed THEN it waits for the plan, the status file says what it waits for, and it is carried out after the plan', async () => {
    await request({ action: 'trigger', plan: 'slow', args: {} });
    await until(async () => of('plan-started', 'slow').length === 1, 30_000, 'the slow plan running');
    const pod = await request({ action: 'pod-restart', pod: 'gate-g-0', reason: 'stale cache', args: {} });
    await until(async () => (await statusInGit()).podRequests?.some((w) => w.id === pod) === true, 30_000, 'the waiting pod request in the status file');
    const waiting = await statusInGit();
    expect(waiting.podRequests).toEqual([{ id: pod, action: 'pod-restart', pod: 'gate-g-0', by: 'Ada <ada@example.com>', waitsFor: expect.stringContaining('plan slow (run ') }]);
    expect(world.user.git('log', '-1', '--format=%(trailers:key=Baton-Event,valueonly)', '--grep=pod-restart gate-g-0', '--', 'status/side/g.yaml').trim()).toBe('pod-request-waiting');
    // Nothing acted on the pod while the plan runs.
    expect(of('plan-started', 'pod-restart')).toEqual([]);

    await releaseGate(client, key.namespace, 'slow-g');
    await until(async () => of('plan-complete', 'slow').length === 1, 30_000, 'the slow plan complete');
    await agent.pass();
    // After the plan the pod pass carries it out: this pod does not exist, so it is refused in status, and no longer waits.
    await until(async () => (await statusInGit()).plans?.['pod-restart'] !== undefined, 30_000, 'the pod request carried out');
    const after = await statusInGit();
    expect(after.plans?.['pod-restart']?.reason).toContain(pod);
    expect(after.podRequests).toBeUndefined();
  });

  it('GIVEN a pod action run directly (not by the agent) WHEN the agent next runs a plan of the instance THEN the pod action is in git log, started and ended once', async () => {
    // What `baton pod restart --kubeconfig` leaves: a finished pod-restart run in the checkpoint, not in Git.
    const store = new ConfigMapCheckpointStore(client);
    const stored = await store.load(key);
    if (stored === undefined) throw new Error('no checkpoint');
    const at = new Date().toISOString();
    const direct = {
      id: 'direct-pod-run-1', plan: 'pod-restart', reason: 'requested by Ada <ada@example.com>: by hand', args: { POD: 'gate-g-0', BY: 'Ada <ada@example.com>' }, frameworkVersion: '1.0.0', strategy: 'parallel' as const,
      state: { status: 'COMPLETE' as const, startedAt: at, finishedAt: at, message: 'done' }, phases: [],
    };
    await store.save({ ...stored.checkpoint, pods: { recent: [], ...(stored.checkpoint.pods ?? {}), last: direct } }, stored.version);
    const marks = of('plan-complete', 'mark').length;
    await request({ action: 'trigger', plan: 'mark', args: {} });
    await until(async () => of('plan-complete', 'mark').length === marks + 1, 30_000, 'the triggered plan complete');
    await agent.writer.flush();
    await world.user.pull();
    const events = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', '--grep=Baton-Run: direct-pod-run-1').split('\n').map((l) => l.trim()).filter((l) => l !== '');
    expect(events.sort()).toEqual(['plan-complete', 'plan-started']);
    expect((await statusInGit()).plans?.['pod-restart']?.id).toBe('direct-pod-run-1');
  });

  it('GIVEN a requested pod restart waiting for its pod to be ready again WHEN a refused request and then a trigger are committed THEN the pod action completes as one run and the requests are carried out after it', async () => {
    // A pod of the instance under a StatefulSet made by hand: no controller runs in this cluster, so
    // the test is the controller. The restart deletes the pod and waits until the test creates it
    // again, Ready (the gate this case holds and releases).
    const sts = await client.create({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'g-db', namespace: key.namespace, annotations: { [ANNOTATION_OWNER]: `${key.namespace}/${key.name}` } },
      spec: { replicas: 1, serviceName: 'g-db', selector: { matchLabels: { app: 'g-db' } }, template: { metadata: { labels: { app: 'g-db' } }, spec: { containers: [{ name: 'db', image: 'redis:7' }] } } },
    });
    const podRef = { apiVersion: 'v1', kind: 'Pod', namespace: key.namespace, name: 'g-db-0' };
    const readyPod = async (): Promise<string> => {
      const created = await client.create({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name: 'g-db-0', namespace: key.namespace, labels: { app: 'g-db' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'g-db', uid: sts.metadata.uid ?? '', controller: true }] },
        spec: { containers: [{ name: 'db', image: 'redis:7' }] },
      });
      await client.patch(podRef, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'merge', { subresource: 'status' });
      return created.metadata.uid ?? '';
    };
    const oldUid = await readyPod();
    const since = events.length;
    const mine = (type: EngineEvent['type'], plan: string): EngineEvent[] => events.slice(since).filter((e) => e.type === type && 'plan' in e && e.plan === plan);
    const marks = of('plan-complete', 'mark').length;

    const restart = await request({ action: 'pod-restart', pod: 'g-db-0', reason: 'stale cache', args: {} });
    await until(async () => mine('step-waiting', 'pod-restart').length > 0 && (await client.get(podRef)) === undefined, 30_000, 'the pod restart waiting for its pod to come back');
    const started = mine('plan-started', 'pod-restart');
    expect(started).toHaveLength(1);
    const first = started[0];
    const runId = first !== undefined && 'runId' in first ? first.runId : '';
    expect(runId).not.toBe('');

    const refused = await request({ action: 'resume', args: {} });
    const triggered = await request({ action: 'trigger', plan: 'mark', args: {} });
    // Give the agent its look at both commits; the pod action is still waiting, not superseded.
    await agent.pass({ wait: false });
    expect(mine('plan-failed', 'pod-restart')).toEqual([]);
    expect(mine('plan-complete', 'pod-restart')).toEqual([]);
    expect(mine('plan-started', 'mark')).toEqual([]);

    const newUid = await readyPod();
    expect(newUid).not.toBe(oldUid);
    await until(async () => mine('plan-complete', 'pod-restart').length === 1, 30_000, 'the pod restart complete');
    await until(async () => of('plan-complete', 'mark').length === marks + 1, 30_000, 'the triggered plan run after the pod restart');
    // One run, started once and ended once, never stopped for the requests.
    expect(mine('plan-started', 'pod-restart')).toHaveLength(1);
    expect(mine('plan-failed', 'pod-restart')).toEqual([]);
    expect(mine('plan-superseded', 'pod-restart')).toEqual([]);
    // The triggered plan started only after the pod action ended.
    const restartEnd = events.findIndex((e, i) => i >= since && e.type === 'plan-complete' && e.plan === 'pod-restart');
    const markStart = events.findIndex((e, i) => i >= since && e.type === 'plan-started' && e.plan === 'mark');
    expect(markStart).toBeGreaterThan(restartEnd);

    await until(async () => (await statusInGit()).requests?.some((r) => r.id === refused) === true, 30_000, 'the refusal in Git');
    const status = await statusInGit();
    expect(status.requests?.find((r) => r.id === refused)).toMatchObject({ result: 'refused', code: 'PLAN_NOT_RUNNING', by: 'Ada <ada@example.com>' });
    expect(status.plans?.['pod-restart']).toMatchObject({ id: runId, reason: expect.stringContaining(`(request ${restart})`), state: { status: 'COMPLETE' } });
    const refusals = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', `--grep=Baton-Request: ${refused}`).split('\n').map((l) => l.trim()).filter((l) => l === 'request-refused');
    expect(refusals).toHaveLength(1);
    expect(world.user.git('log', '--format=%s', `--grep=Baton-Request: ${triggered}`).trim()).not.toBe('');
    // In git log the pod run has its start and its one end, nothing else.
    const podRun = world.user.git('log', '--format=%(trailers:key=Baton-Event,valueonly)', `--grep=Baton-Run: ${runId}`).split('\n').map((l) => l.trim()).filter((l) => l !== '');
    expect(podRun.sort()).toEqual(['plan-complete', 'plan-started']);
  });

  it('THEN the history has every run started once and ended at most once', async () => {
    await agent.writer.flush();
    const check = checkHistory(world.sandbox.env, world.origin, { instances: ['side/g'] });
    expect(check.defects).toEqual([]);
  });
});
