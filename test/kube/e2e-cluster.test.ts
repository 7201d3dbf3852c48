/**
 * End to end against Baton's simulated API server: the same client a real cluster gets, over HTTPS
 * with the kubeconfig the cluster writes (CA, bearer token), and over a plain URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../src/cluster/index.js';
import type { WatchEvent } from '../../src/kube/client.js';
import { KubeApiError } from '../../src/kube/errors.js';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeObject } from '../../src/kube/object.js';
import { gateFor } from '../../src/plans/gates/index.js';

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

  it('GIVEN a URL and token client WHEN the token is wrong THEN a 401 KubeApiError', async () => {
    const bad = await createKubeClient({ url: cluster.url, token: 'wrong', insecureSkipTlsVerify: true });
    await expect(bad.resourceFor('v1', 'Pod')).rejects.toMatchObject({ status: 401, reason: 'Unauthorized' });
    bad.close();
  });
});
