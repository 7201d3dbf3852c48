/**
 * The engine end to end over HTTP against the simulated cluster and its controllers (pods really
 * become ready, Jobs really fail), with the real gates and failure classes, and faults injected by
 * the simulated API server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultInjector, type FaultInjector } from '../../src/cluster/faults/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { RenderedPlan } from '../../src/render/types.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { apply, plan, step } from './fixtures.js';

let cluster: TestCluster;
let client: HttpKubeClient;
let faults: FaultInjector;

beforeAll(async () => {
  faults = createFaultInjector();
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 20, readyDelayMs: 30 }, interceptor: faults });
  client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
});
afterAll(async () => {
  client.close();
  await cluster.stop();
});

let seq = 0;
/** Each test gets its own instance and namespace so tests don't see each other's objects. */
function instance(): { name: string; namespace: string } {
  seq++;
  return { name: `i${seq}`, namespace: `e2e-${seq}` };
}

async function run(inst: { name: string; namespace: string }, p: RenderedPlan, events: EngineEvent[] = []): Promise<ReconcileResult> {
  const rendered: RenderedPlan = { ...p, instance: inst, phases: p.phases.map((ph) => ({ ...ph, steps: ph.steps.map((s) => ({ ...s, actions: s.actions.map((a) => ({ ...a, object: inNs(a.object, inst.namespace) })) })) })) };
  return reconcile({
    client,
    store: new ConfigMapCheckpointStore(client),
    hooks: defaultHooks(),
    instance: inst,
    framework: 'test',
    desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { N: seq }, params: [{ name: 'N' }], plans: [p.plan] },
    render: async () => rendered,
    onEvent: (e) => events.push(e),
    imagePullGraceSeconds: 1,
  });
}

function inNs(o: KubeObject, namespace: string): KubeObject {
  const clusterScoped = o.kind === 'Namespace' || o.kind === 'CustomResourceDefinition';
  return { ...o, metadata: { ...o.metadata, ...(clusterScoped ? {} : { namespace }) } };
}

function deployment(name: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name }, annotations }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
    },
  };
}

function job(name: string, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { backoffLimit: 0, template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] } } },
  };
}

const failureOf = (r: ReconcileResult) => (r.kind === 'ran' && r.execution.outcome === 'failed' ? r.execution.error : undefined);

describe('the engine against the simulated cluster', () => {
  it('deploys a workload, waiting at its gate (and saying why) until the rollout completes', async () => {
    const events: EngineEvent[] = [];
    const result = await run(instance(), plan('deploy', [{ name: 'p', steps: [step('web', [apply(deployment('web'))]), step('after', [apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' }, data: {} })])] }]), events);
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect(events.some((e) => e.type === 'step-waiting' && e.object.startsWith('Deployment'))).toBe(true);
  });

  it('ends a failing Job as FATAL_ERROR and runs nothing after it', async () => {
    const inst = instance();
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('migrate', [apply(job('migrate', { 'sim.baton.dev/fail': 'job-fail' }))]), step('after', [apply(deployment('never'))])] }]));
    expect(failureOf(result)).toMatchObject({ code: 'GATE_FAILED', object: `Job ${inst.namespace}/migrate` });
    expect(await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: inst.namespace, name: 'never' })).toBeUndefined();
  });

  it('times out a crash-looping pod at the step timeout, naming the pod and its state', async () => {
    const result = await run(instance(), plan('deploy', [{ name: 'p', steps: [step('web', [apply(deployment('crashy', { 'sim.baton.dev/fail': 'crash-loop' }))], 2)] }]));
    expect(failureOf(result)?.code).toBe('STEP_TIMEOUT');
    expect(failureOf(result)?.message).toMatch(/CrashLoopBackOff|restart/i);
  });

  it('fails a workload whose image cannot be pulled past the grace period', async () => {
    const d = deployment('nopull');
    (d['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]!.image = 'nginx:does-not-exist';
    const result = await run(instance(), plan('deploy', [{ name: 'p', steps: [step('web', [apply(d)], 30)] }]));
    expect(failureOf(result)?.code).toBe('GATE_FAILED');
    expect(failureOf(result)?.message).toMatch(/pull/i);
  });

  it('GIVEN a Job whose image cannot be pulled THEN it fails past the grace period naming the image, not at the step timeout', async () => {
    const j = job('nopull');
    (j['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]!.image = 'busybox:does-not-exist';
    const inst = instance();
    const events: EngineEvent[] = [];
    const started = Date.now();
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('migrate', [apply(j)], 60)] }]), events);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failureOf(result)).toMatchObject({ code: 'GATE_FAILED', object: `Job ${inst.namespace}/nopull` });
    expect(failureOf(result)?.message).toMatch(/(ImagePullBackOff|ErrImagePull).*busybox:does-not-exist/);
    expect(result.kind === 'ran' && result.execution.run.phases[0]?.steps[0]?.state.status).toBe('FATAL_ERROR');
    // AND while it waited, the Job's pod said why
    expect(events.some((e) => e.type === 'step-waiting' && /pod nopull-/.test(e.message))).toBe(true);
  });

  it('runs the steps of a parallel phase concurrently', async () => {
    const slow = { 'sim.baton.dev/ready-delay-ms': '700' };
    const events: EngineEvent[] = [];
    const p = plan('deploy', [{ name: 'p', strategy: 'parallel', steps: [step('a', [apply(deployment('a', slow))]), step('b', [apply(deployment('b', slow))]), step('c', [apply(deployment('c', slow))])] }]);
    const result = await run(instance(), p, events);
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    // All three started before any finished: they were in flight together.
    const order = events.filter((e) => e.type === 'step-started' || e.type === 'step-complete').map((e) => e.type);
    expect(order).toEqual(['step-started', 'step-started', 'step-started', 'step-complete', 'step-complete', 'step-complete']);
  });

  it('applies a CRD and its custom resource in one batch', async () => {
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.e2e.example.com' },
      spec: {
        group: 'e2e.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const widget: KubeObject = { apiVersion: 'e2e.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
    const inst = instance();
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('all', [apply(widget), apply(crd)])] }]));
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect((await client.get({ apiVersion: 'e2e.example.com/v1', kind: 'Widget', namespace: inst.namespace, name: 'w1' }))?.['spec']).toEqual({ size: 3 });
  });

  it('GIVEN a field another manager owns WHEN the plan applies THEN Git wins: the field is taken over (force by default)', async () => {
    const inst = instance();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: inst.namespace } });
    await client.apply(inNs({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { key: 'theirs' } }, inst.namespace), { fieldManager: 'helm' });
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('s', [apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { key: 'ours' } })])] }]));
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    const live = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: inst.namespace, name: 'shared' });
    expect(live?.['data']).toEqual({ key: 'ours' });
    expect(live?.metadata.managedFields?.find((m) => m.manager === 'baton')?.fieldsV1).toMatchObject({ 'f:data': { 'f:key': {} } });
  });

  it('GIVEN an object annotated baton.dev/conflicts: Fail WHEN another manager owns a field THEN the step fails FIELD_CONFLICT naming the manager', async () => {
    const inst = instance();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: inst.namespace } });
    await client.apply(inNs({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { key: 'theirs' } }, inst.namespace), { fieldManager: 'helm' });
    const strict: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', annotations: { 'baton.dev/conflicts': 'Fail' } }, data: { key: 'ours' } };
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('s', [apply(strict)])] }]));
    expect(failureOf(result)).toMatchObject({ code: 'FIELD_CONFLICT' });
    expect(failureOf(result)?.message).toContain('"helm"');
  });

  it('GIVEN an object annotated baton.dev/conflicts: Report WHEN another manager owns a field THEN the rest is applied, that field is left to its manager and the step says so', async () => {
    const inst = instance();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: inst.namespace } });
    await client.apply(inNs({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { key: 'theirs' } }, inst.namespace), { fieldManager: 'helm' });
    const polite: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', annotations: { 'baton.dev/conflicts': 'Report' } }, data: { key: 'ours', other: 'mine' } };
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('s', [apply(polite)])] }]));
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: inst.namespace, name: 'shared' }))?.['data']).toEqual({ key: 'theirs', other: 'mine' });
    const stepState = result.kind === 'ran' ? result.execution.run.phases[0]?.steps[0]?.state : undefined;
    const message = stepState && 'message' in stepState ? stepState.message : '';
    expect(message).toContain('fields left to other managers: ConfigMap');
    expect(message).toContain('.data.key ("helm")');
  });

  it('GIVEN an object annotated baton.dev/apply: IfNotPresent WHEN it already exists THEN it is left as it is; WHEN it is absent THEN it is created', async () => {
    const inst = instance();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: inst.namespace } });
    await client.apply(inNs({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seeded' }, data: { key: 'edited-by-people' } }, inst.namespace), { fieldManager: 'kubectl' });
    const seed = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, annotations: { 'baton.dev/apply': 'IfNotPresent' } }, data: { key: 'initial' } });
    const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('s', [apply(seed('seeded')), apply(seed('fresh'))])] }]));
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: inst.namespace, name: 'seeded' }))?.['data']).toEqual({ key: 'edited-by-people' });
    expect((await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: inst.namespace, name: 'fresh' }))?.['data']).toEqual({ key: 'initial' });
  });

  it.each([
    ['429 with Retry-After', { error: 429 as const, retryAfterSeconds: 0 }],
    ['500', { error: 500 as const }],
    ['503', { error: 503 as const }],
  ])('retries %s answers to apply until they succeed', async (_name, fault) => {
    const inst = instance();
    faults.setRules([{ verb: 'patch', resource: 'configmaps', namespace: inst.namespace, count: 2, ...fault }]);
    const events: EngineEvent[] = [];
    try {
      const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('s', [apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flaky' }, data: {} })])] }]), events);
      expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
      expect(events.filter((e) => e.type === 'step-error').length).toBeGreaterThanOrEqual(1);
    } finally {
      faults.clear();
    }
  });

  it('keeps waiting through dropped watches and still finishes', async () => {
    const inst = instance();
    faults.setRules([{ verb: 'watch', namespace: inst.namespace, dropWatchAfterMs: 100 }]);
    try {
      const result = await run(inst, plan('deploy', [{ name: 'p', steps: [step('web', [apply(deployment('web', { 'sim.baton.dev/ready-delay-ms': '500' }))])] }]));
      expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    } finally {
      faults.clear();
    }
  });
});
