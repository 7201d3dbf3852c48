/**
 * Issue 20 (API calls per instance): a workload whose apply answer did not pass its gate was listed
 * again (its kind in its namespace, by name) and its namespace's pods listed, before both were watched.
 * GIVEN a step that creates a Deployment WHEN it waits for readiness THEN the watches start from the
 * apply answer (no list of the Deployment) and, since no pod of it can predate its apply, the pods are
 * watched from there too (no pod list); a Deployment that existed before the step still has its pods
 * listed (its running pods explain its wait). Pods are followed once a wait has lasted POD_CONTEXT_AFTER_MS.
 */
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { POD_CONTEXT_AFTER_MS } from '../../src/plans/batch.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import { reconcile, type ReconcileResult } from '../../src/plans/reconcile.js';
import type { RenderedPlan } from '../../src/render/types.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { recordingProxy, type RecordedRequest, type RecordingProxy } from '../helpers/recording-proxy.js';
import { apply, plan, step } from './fixtures.js';

let cluster: TestCluster;
let proxy: RecordingProxy;
let client: HttpKubeClient;
let dir: string;

beforeAll(async () => {
  // Pods ready after 1.5 s: the waits outlast POD_CONTEXT_AFTER_MS, so the pods are followed (watch-context.test.ts: when not).
  cluster = await startTestCluster({ controllers: true, timing: { podStartDelayMs: 20, readyDelayMs: POD_CONTEXT_AFTER_MS + 500 } });
  proxy = await recordingProxy(cluster.url);
  dir = mkdtempSync(join(tmpdir(), 'baton-readiness-calls-'));
  client = await createKubeClient({ kubeconfigPath: proxy.kubeconfig(join(dir, 'kubeconfig')) });
});
afterAll(async () => {
  client.close();
  await proxy.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

const INSTANCE = { namespace: 'calls', name: 'web' };

function deployment(image: string): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: INSTANCE.namespace },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } } },
  };
}

async function deploy(image: string, version: string): Promise<ReconcileResult> {
  const rendered: RenderedPlan = { ...plan('deploy', [{ name: 'p', steps: [step('web', [apply(deployment(image))])] }]), instance: INSTANCE };
  return reconcile({
    client, store: new ConfigMapCheckpointStore(client), hooks: defaultHooks(), instance: INSTANCE, framework: 'test',
    desired: { frameworkVersion: version, frameworkHash: version, values: {}, params: [], plans: ['deploy'] },
    render: async () => rendered,
  });
}

const route = (r: RecordedRequest): string => `${r.method} ${r.path.split('?')[0] ?? ''}${/[?&]watch=(1|true)/.test(r.path) ? ' (watch)' : ''}`;
const lists = (calls: string[]): string[] => calls.filter((c) => c === `GET /apis/apps/v1/namespaces/${INSTANCE.namespace}/deployments` || c === `GET /api/v1/namespaces/${INSTANCE.namespace}/pods`);

describe('the readiness wait of a workload', () => {
  it('GIVEN a step that creates a Deployment WHEN it waits for its rollout THEN neither the Deployment nor the pods are listed, only watched', async () => {
    proxy.requests.length = 0;
    const result = await deploy('nginx:1.27', '1.0.0');
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    const calls = proxy.requests.map(route);
    // Before: one list of each, then a watch of each.
    expect(lists(calls)).toEqual([]);
    expect(calls).toContain(`GET /apis/apps/v1/namespaces/${INSTANCE.namespace}/deployments (watch)`);
    expect(calls).toContain(`GET /api/v1/namespaces/${INSTANCE.namespace}/pods (watch)`);
  });

  it('GIVEN the Deployment exists WHEN a new version rolls out THEN its pods are listed (they predate the apply), the Deployment is not', async () => {
    proxy.requests.length = 0;
    const result = await deploy('nginx:1.28', '2.0.0');
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect(lists(proxy.requests.map(route))).toEqual([`GET /api/v1/namespaces/${INSTANCE.namespace}/pods`]);
  });
});
