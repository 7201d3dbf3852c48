/**
 * Drift tests' world: the simulated cluster over HTTP (with its controllers, so workloads really
 * become ready), instances deployed by the real engine from hand-written rendered plans carrying the
 * labels rendering adds, and kubectl as the person (or controller) changing things out of band.
 */
import { createFaultInjector, type FaultInjector } from '../../src/cluster/faults/index.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { DesiredState } from '../../src/plans/selection.js';
import { standardLabels } from '../../src/render/labels.js';
import type { BatchAction, RenderedPlan } from '../../src/render/types.js';
import { desiredSetOf, sweep, type SweepInstance, type SweepReport, type InstanceDrift, type SelfHealPolicy } from '../../src/drift/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

export interface DriftWorld {
  cluster: TestCluster;
  client: HttpKubeClient;
  faults: FaultInjector;
  stop(): Promise<void>;
}

export async function driftWorld(): Promise<DriftWorld> {
  const faults = createFaultInjector();
  const cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, interceptor: faults });
  const client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  return { cluster, client, faults, stop: async () => { client.close(); await cluster.stop(); } };
}

export interface TestInstance {
  key: { namespace: string; name: string };
  plan: RenderedPlan;
  desired: DesiredState;
}

/** Labels as rendering adds them (docs/templates.md, enhancement). */
function labelled(obj: KubeObject, name: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, labels: { ...(obj.metadata.labels ?? {}), ...standardLabels('web', name, '1.0.0') }, annotations: { 'baton.dev/plan': 'deploy', ...(obj.metadata.annotations ?? {}) } } };
}

export interface Shape {
  replicas?: number | undefined;
  extra?: KubeObject[];
  annotations?: Record<string, string>;
  withPdb?: boolean;
  withService?: boolean;
}

/** An instance's objects: a ConfigMap, a Deployment, and optionally a Service and a PodDisruptionBudget. */
export function webInstance(namespace: string, name: string, shape: Shape = {}): TestInstance {
  const replicas = 'replicas' in shape ? shape.replicas : 2;
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-config`, namespace }, data: { greeting: 'hello' } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace, ...(shape.annotations ? { annotations: shape.annotations } : {}) },
      spec: { ...(replicas !== undefined ? { replicas } : {}), selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    },
    ...(shape.withService !== false ? [{ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: { app: name }, ports: [{ port: 80 }] } }] : []),
    ...(shape.withPdb !== false ? [{ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace }, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } }] : []),
    ...(shape.extra ?? []).map((o) => ({ ...o, metadata: { ...o.metadata, namespace } })),
  ].map((o) => labelled(o, name));
  const actions: BatchAction[] = objects.map((object) => ({ action: 'apply', object, task: 'main', template: 'main.yaml.ejs', force: false }));
  const plan: RenderedPlan = {
    instance: { namespace, name }, framework: { name: 'web', version: '1.0.0', appVersion: '1' }, plan: 'deploy', strategy: 'serial',
    phases: [{ name: 'main', strategy: 'serial', steps: [{ name: 'app', timeoutSeconds: 60, actions }] }], readiness: [], sensitiveParams: [],
  };
  return { key: { namespace, name }, plan, desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { NAME: name }, params: [{ name: 'NAME' }], plans: ['deploy'] } };
}

export function deploy(world: DriftWorld, i: TestInstance): Promise<ReconcileResult> {
  return reconcile({ client: world.client, store: new ConfigMapCheckpointStore(world.client), hooks: defaultHooks(), instance: i.key, framework: 'web', desired: i.desired, render: async () => i.plan });
}

export function sweepInstance(i: TestInstance, policy: SelfHealPolicy = 'repair'): SweepInstance {
  return { key: i.key, policy, desired: () => desiredSetOf({ desired: i.desired, render: async () => i.plan }) };
}

export async function sweepAll(world: DriftWorld, instances: readonly TestInstance[], policy: SelfHealPolicy = 'repair'): Promise<SweepReport> {
  return sweep({ client: world.client, hooks: defaultHooks(), instances: instances.map((i) => sweepInstance(i, policy)) });
}

export function driftOf(report: SweepReport, i: TestInstance): InstanceDrift {
  const found = report.instances.find((d) => d.instance.namespace === i.key.namespace && d.instance.name === i.key.name);
  if (!found) throw new Error(`no drift result for ${i.key.namespace}/${i.key.name}`);
  return found;
}

/** Polls `check` until it returns true (conditions, not sleeps): the controllers work asynchronously. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
