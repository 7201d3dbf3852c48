/**
 * Recovery tests' world: the simulated cluster over HTTP with its controllers and three nodes, and an
 * instance deployed by the real engine: a StatefulSet with per-pod claims (`db`), a Deployment (`web`),
 * labelled and annotated as rendering does. kubectl-style changes go through the client.
 */
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { DesiredState } from '../../src/plans/selection.js';
import { ANNOTATION_OWNER, standardLabels } from '../../src/render/labels.js';
import type { BatchAction, RenderedPlan } from '../../src/render/types.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';

export interface RecoveryWorld {
  cluster: TestCluster;
  client: HttpKubeClient;
  stop(): Promise<void>;
}

export async function recoveryWorld(): Promise<RecoveryWorld> {
  const cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, nodes: 3 });
  const client = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  return { cluster, client, stop: async () => { client.close(); await cluster.stop(); } };
}

export interface DbInstance {
  key: { namespace: string; name: string };
  plan: RenderedPlan;
  desired: DesiredState;
}

export function dbInstance(namespace: string, name: string, replicas = 3): DbInstance {
  const owned = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, namespace, labels: standardLabels('db', name, '1.0.0'), annotations: { [ANNOTATION_OWNER]: `${namespace}/${name}` } } });
  const objects: KubeObject[] = [
    {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: `${name}-db` },
      spec: {
        replicas, serviceName: `${name}-db`, selector: { matchLabels: { app: `${name}-db` } },
        template: { metadata: { labels: { app: `${name}-db` } }, spec: { containers: [{ name: 'db', image: 'redis:7' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `${name}-web` },
      spec: { replicas: 1, selector: { matchLabels: { app: `${name}-web` } }, template: { metadata: { labels: { app: `${name}-web` } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    },
  ].map(owned);
  const actions: BatchAction[] = objects.map((object) => ({ action: 'apply', object, task: 'main', template: 'main.yaml.ejs', force: false }));
  const plan: RenderedPlan = {
    instance: { namespace, name }, framework: { name: 'db', version: '1.0.0', appVersion: '1' }, plan: 'deploy', strategy: 'serial',
    phases: [{ name: 'main', strategy: 'serial', steps: [{ name: 'app', timeoutSeconds: 60, actions }] }], readiness: [], sensitiveParams: [],
  };
  return { key: { namespace, name }, plan, desired: { frameworkVersion: '1.0.0', frameworkHash: 'h', values: { NAME: name }, params: [{ name: 'NAME' }], plans: ['deploy'] } };
}

export function deploy(world: RecoveryWorld, i: DbInstance): Promise<ReconcileResult> {
  return reconcile({ client: world.client, store: new ConfigMapCheckpointStore(world.client), hooks: defaultHooks(), instance: i.key, framework: 'db', desired: i.desired, render: async () => i.plan });
}

export const pods = async (world: RecoveryWorld, ns: string): Promise<KubeObject[]> => (await world.client.list('v1', 'Pod', ns)).items;
export const podNamed = async (world: RecoveryWorld, ns: string, name: string): Promise<KubeObject | undefined> => world.client.get({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name });
export const claimNamed = async (world: RecoveryWorld, ns: string, name: string): Promise<KubeObject | undefined> => world.client.get({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: ns, name });
export const nodeOf = (pod: KubeObject | undefined): string => String((pod?.['spec'] as { nodeName?: string } | undefined)?.nodeName ?? '');
export const setNodeDown = (world: RecoveryWorld, node: string, down: boolean): Promise<KubeObject> =>
  world.client.patch({ apiVersion: 'v1', kind: 'Node', name: node }, { metadata: { annotations: { 'sim.baton.dev/node-down': down ? 'true' : null } } }, 'merge');

export function isReady(pod: KubeObject | undefined): boolean {
  const conditions = (pod?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return pod !== undefined && pod.metadata.deletionTimestamp === undefined && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Polls `check` until it returns true (conditions, not sleeps): the controllers work asynchronously. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
