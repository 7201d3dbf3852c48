/**
 * Recovery tests' world: the shared repo harness on a simulated cluster with its controllers and three
 * nodes (WORKLOAD_CLUSTER), and an instance deployed by the real engine: a StatefulSet with per-pod
 * claims (`db`), a Deployment (`web`), labelled and annotated as rendering does. kubectl-style changes go
 * through the client; pods, claims and nodes through the harness (`pod`, `pods`, `claim`, `setNodeDown`).
 */
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { DesiredState } from '../../src/plans/selection.js';
import { ANNOTATION_OWNER, standardLabels } from '../../src/render/labels.js';
import type { BatchAction, RenderedPlan } from '../../src/render/types.js';
import { startRepoHarness, WORKLOAD_CLUSTER, type RepoHarness } from '../helpers/agent-harness.js';

export type RecoveryWorld = RepoHarness;

export function recoveryWorld(): Promise<RecoveryWorld> {
  return startRepoHarness({ cluster: WORKLOAD_CLUSTER });
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

