/**
 * Acceptance: API faults as clients see them. A retrying client-node caller gets through 503s and
 * 429s; a watch the server drops is resumed by client-node's informer and by the simulated controllers,
 * so workloads still converge while the API misbehaves.
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { createFaultInjector, type FaultInjector } from '../../../src/cluster/faults/index.js';
import { opensslAvailable } from '../../../src/cluster/server/tls.js';
import { startTestCluster, type TestCluster } from '../../helpers/cluster.js';

let c: TestCluster | undefined;
afterEach(async () => {
  await c?.stop();
  c = undefined;
});

async function cluster(faults: FaultInjector, controllers = false): Promise<{ c: TestCluster; kc: k8s.KubeConfig }> {
  c = await startTestCluster({ interceptor: faults, faultAdmin: faults, controllers, nodes: 2, timing: { podStartDelayMs: 10, readyDelayMs: 10 } });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(c.kubeconfigPath);
  return { c, kc };
}

/** What a well-behaved client does: retry 429/5xx, waiting Retry-After when the server gives one. */
async function withRetries<T>(call: () => Promise<T>, attempts: number): Promise<{ value: T; failures: number[] }> {
  const failures: number[] = [];
  for (let i = 0; ; i++) {
    try {
      return { value: await call(), failures };
    } catch (err) {
      const code = err instanceof k8s.ApiException ? err.code : 0;
      if (i >= attempts || ![429, 500, 503].includes(code)) throw err;
      failures.push(code);
      const retryAfter = Number((err as k8s.ApiException<unknown>).headers['retry-after'] ?? 0);
      await new Promise((r) => setTimeout(r, Math.min(retryAfter * 1000, 50)));
    }
  }
}

describe('fault injection seen by clients', () => {
  it('GIVEN lists of configmaps fail with 503 and 429 WHEN a client retries THEN it gets through', async () => {
    const faults = createFaultInjector([
      { verb: 'list', resource: 'configmaps', error: 503, retryAfterSeconds: 1, count: 2 },
      { verb: 'list', resource: 'configmaps', error: 429, count: 1 },
    ]);
    const { kc } = await cluster(faults);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const { value, failures } = await withRetries(() => core.listNamespacedConfigMap({ namespace: 'default' }), 5);
    expect(failures).toEqual([503, 503, 429]);
    expect(Array.isArray(value.items)).toBe(true);
    expect(faults.rules().map((r) => r.hits)).toEqual([2, 1]);
  });

  it('GIVEN the server drops every configmap watch after 150 ms WHEN an informer runs THEN it resumes and sees every change', async () => {
    const faults = createFaultInjector([{ verb: 'watch', resource: 'configmaps', dropWatchAfterMs: 150 }]);
    const { kc } = await cluster(faults);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const seen = new Set<string>();
    informer.on('add', (cm: k8s.V1ConfigMap) => {
      if (cm.metadata?.name?.startsWith('cm-')) seen.add(cm.metadata.name);
    });
    informer.on('error', () => setTimeout(() => void informer.start(), 20));
    await informer.start();
    try {
      for (let i = 0; i < 4; i++) {
        await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `cm-${i}` } } });
        await new Promise((r) => setTimeout(r, 200));
      }
      const deadline = Date.now() + 5000;
      while (seen.size < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect([...seen].sort()).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3']);
      expect(faults.rules()[0]?.hits).toBeGreaterThanOrEqual(3);
    } finally {
      await informer.stop();
    }
  });

  it('GIVEN errors on a third of writes and watches dropped every 200 ms WHEN a Deployment is created THEN the controllers still roll it out', async () => {
    const faults = createFaultInjector(
      [
        { verb: ['create', 'patch', 'update'], error: 500, rate: 0.3 },
        { verb: 'watch', dropWatchAfterMs: 200 },
      ],
      { seed: 42 },
    );
    const { kc } = await cluster(faults, true);
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const body = { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }] } } } };
    await withRetries(() => apps.createNamespacedDeployment({ namespace: 'default', body }), 10);
    const deadline = Date.now() + 15_000;
    let available = 0;
    while (Date.now() < deadline) {
      const got = await withRetries(() => apps.readNamespacedDeployment({ namespace: 'default', name: 'web' }), 10).catch(() => undefined);
      available = got?.value.status?.availableReplicas ?? 0;
      if (available === 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(available).toBe(3);
    expect(faults.rules().map((r) => r.hits > 0)).toEqual([true, true]);
  });
});

describe('the controllers behind TLS', () => {
  it.skipIf(!opensslAvailable())('GIVEN an https cluster with a token and the controllers over HTTP THEN they connect and roll a Deployment out', async () => {
    c = await startTestCluster({ tls: true, controllers: true, controllersClient: 'http', nodes: 1, timing: { podStartDelayMs: 5, readyDelayMs: 5 } });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(c.kubeconfigPath);
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const body = { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }] } } } };
    await apps.createNamespacedDeployment({ namespace: 'default', body });
    const deadline = Date.now() + 10_000;
    let available = 0;
    while (available !== 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      available = (await apps.readNamespacedDeployment({ namespace: 'default', name: 'web' })).status?.availableReplicas ?? 0;
    }
    expect(available).toBe(2);
  });
});
