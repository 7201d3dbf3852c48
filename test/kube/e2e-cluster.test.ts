/**
 * End to end against Baton's simulated API server: the same client a real cluster gets, over HTTPS
 * with the kubeconfig the cluster writes (CA, bearer token), and over a plain URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../src/cluster/index.js';
import type { WatchEvent } from '../../src/kube/client.js';
import { KubeApiError, KubeTransportError } from '../../src/kube/errors.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import { refOf, type KubeObject } from '../../src/kube/object.js';
import { explainFromCluster, gateFor } from '../../src/plans/gates/index.js';

const CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

const gateCtx = { rules: [], now: new Date(), imagePullGraceSeconds: 60, batch: [] };

describe('HttpKubeClient against the simulated cluster', () => {
  let cluster: Cluster;
  let kube: HttpKubeClient;
  beforeAll(async () => {
    cluster = await startCluster({ tls: true, controllers: false });
    kube = await createKubeClient({ kubeconfigPath: cluster.kubeconfigPath });
  });
  afterAll(async () => {
    kube.close();
    await cluster.stop();
  });

  it('GIVEN the kubeconfig the cluster wrote WHEN applying a namespace and a config map THEN they exist and read back intact', async () => {
    const ns = await kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'e2e' } }, { fieldManager: 'baton' });
    expect(gateFor(ns, gateCtx).state).toBe('done');
    await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', namespace: 'e2e' }, data: { a: '1' } }, { fieldManager: 'baton' });
    const got = await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'conf', namespace: 'e2e' });
    expect(got?.data).toEqual({ a: '1' });
    const listed = await kube.list('v1', 'ConfigMap', 'e2e');
    expect(listed.items.map((i) => `${i.kind}/${i.metadata.name ?? ''}`)).toContain('ConfigMap/conf');
    expect(listed.resourceVersion).not.toBe('');
  });

  it('GIVEN a stale resourceVersion WHEN update THEN the server Conflict arrives as a KubeApiError', async () => {
    const created = await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lock', namespace: 'e2e' }, data: { v: '1' } });
    await kube.patch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'lock', namespace: 'e2e' }, { data: { v: '2' } }, 'merge');
    const err: unknown = await kube.update({ ...created, data: { v: '3' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).reason).toBe('Conflict');
  });

  it('GIVEN a watch from a list resourceVersion WHEN an object changes and is deleted THEN the events arrive in order', async () => {
    const { resourceVersion } = await kube.list('v1', 'ConfigMap', 'e2e');
    const controller = new AbortController();
    const seen: WatchEvent[] = [];
    const watching = (async () => {
      for await (const e of kube.watch('v1', 'ConfigMap', 'e2e', { resourceVersion, signal: controller.signal })) {
        seen.push(e);
        if (e.type === 'DELETED') controller.abort();
      }
    })();
    await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', namespace: 'e2e' } });
    await kube.patch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace: 'e2e' }, { data: { x: 'y' } }, 'merge');
    expect(await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace: 'e2e' })).toBeDefined();
    await watching;
    expect(seen.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`)).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
    expect(await kube.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace: 'e2e' })).toBeUndefined();
    expect(await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'watched', namespace: 'e2e' })).toBeUndefined();
  });

  it('GIVEN a CRD created after discovery was cached WHEN its custom resource is applied THEN the kind is found and unknown fields survive', async () => {
    await expect(kube.resourceFor('example.com/v1', 'Widget')).rejects.toMatchObject({ reason: 'NotFound' });
    await kube.apply(CRD, { fieldManager: 'baton' });
    const widget: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'e2e' }, spec: { size: 3, nested: { anything: [1, 'two'] } } };
    let applied: KubeObject | undefined;
    for (let i = 0; i < 50 && applied === undefined; i++) {
      applied = await kube.apply(widget, { fieldManager: 'baton' }).catch(async () => {
        await new Promise((r) => setTimeout(r, 50)); // the CRD may take a moment to be served
        return undefined;
      });
    }
    expect(applied?.spec).toEqual({ size: 3, nested: { anything: [1, 'two'] } });
  });

  it('GIVEN apply with dryRun WHEN the object does not exist THEN nothing persists', async () => {
    await kube.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'e2e' } }, { fieldManager: 'baton', dryRun: true });
    expect(await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'dry', namespace: 'e2e' })).toBeUndefined();
  });

  it('GIVEN a URL client with the cluster CA WHEN it connects over HTTPS THEN the certificate is verified and requests succeed', async () => {
    const caData = /certificate-authority-data: *"?([A-Za-z0-9+/=]+)/.exec(cluster.kubeconfig)?.[1];
    expect(caData).toBeDefined();
    const viaUrl = await createKubeClient({ url: cluster.url, token: cluster.token, caData: caData! });
    await expect(viaUrl.get({ apiVersion: 'v1', kind: 'Namespace', name: 'e2e' })).resolves.toMatchObject({ metadata: { name: 'e2e' } });
    viaUrl.close();
    const untrusted = await createKubeClient({ url: cluster.url, token: cluster.token });
    await expect(untrusted.resourceFor('v1', 'Pod')).rejects.toBeInstanceOf(KubeTransportError);
    untrusted.close();
  });

  it('GIVEN a URL and token client WHEN the token is wrong THEN a 401 KubeApiError', async () => {
    const bad = await createKubeClient({ url: cluster.url, token: 'wrong', insecureSkipTlsVerify: true });
    await expect(bad.resourceFor('v1', 'Pod')).rejects.toMatchObject({ status: 401, reason: 'Unauthorized' });
    bad.close();
  });
});

describe('gates against the simulated controllers', () => {
  let cluster: Cluster;
  let kube: HttpKubeClient;
  beforeAll(async () => {
    cluster = await startCluster({ timing: { podStartDelayMs: 20, readyDelayMs: 20 } });
    kube = await createKubeClient({ url: cluster.url, token: cluster.token });
    await kube.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gates' } }, { fieldManager: 'baton' });
  });
  afterAll(async () => {
    kube.close();
    await cluster.stop();
  });

  const deployment = (name: string, image: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'gates' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
    },
  });

  /** Watches the object until its gate leaves `waiting` (or 10 s pass). */
  async function settle(obj: KubeObject): Promise<string> {
    const signal = AbortSignal.timeout(10_000);
    const fieldSelector = `metadata.name=${obj.metadata.name ?? ''}`;
    for await (const e of kube.watch(obj.apiVersion, obj.kind, 'gates', { fieldSelector, signal })) {
      const verdict = gateFor(e.object, gateCtx);
      if (verdict.state !== 'waiting') return `${verdict.state}: ${verdict.message}`;
    }
    return 'timed out';
  }

  /** Polls gate + pod explanation (pods change without the workload changing) until not waiting. */
  async function settleWithPods(obj: KubeObject): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const current = await kube.get(refOf(obj));
      if (current) {
        const ctx = { ...gateCtx, now: new Date(), imagePullGraceSeconds: 0 };
        const { result } = await explainFromCluster(kube, current, gateFor(current, ctx), ctx);
        if (result.state !== 'waiting') return `${result.state}: ${result.message}`;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return 'timed out';
  }

  it('GIVEN a Deployment of a pullable image WHEN the controllers roll it out THEN its gate becomes done', async () => {
    await kube.apply(deployment('good', 'nginx:1.27'), { fieldManager: 'baton' });
    expect(await settle(deployment('good', ''))).toBe('done: 2/2 replicas available');
  });

  it('GIVEN a Deployment whose image cannot be pulled WHEN its pods are explained past the grace THEN the gate fails naming pod and image', async () => {
    await kube.apply(deployment('bad', 'nginx:does-not-exist'), { fieldManager: 'baton' });
    expect(await settleWithPods(deployment('bad', ''))).toMatch(/^failed: 0\/2 replicas (updated|available); pod bad-[a-z0-9-]+: ImagePullBackOff \(image nginx:does-not-exist\) for \d+s, past the 0s grace$/);
  });
});
