/**
 * @kubernetes/client-node 1.4.0 against the simulated API server, with the kubeconfig it writes:
 * typed list calls, a raw watch, an informer, server-side apply as a raw PATCH (the typed helpers drop
 * fields, see DEPENDENCIES.md) and a Lease update that loses on resourceVersion.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCluster, startTestCluster } from '../../helpers/cluster.js';

let c: TestCluster;
let kc: k8s.KubeConfig;
const ns = 'client-node';

beforeAll(async () => {
  c = await startTestCluster();
  kc = new k8s.KubeConfig();
  kc.loadFromFile(c.kubeconfigPath);
  await kc.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
});
afterAll(async () => {
  await c?.stop();
});

/** Server-side apply as DEPENDENCIES.md prescribes: a raw PATCH with client-node's auth options. */
async function serverSideApply(path: string, body: object, manager: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const opts = await kc.applyToFetchOptions({});
  const headers = new Headers(opts.headers as Record<string, string>);
  headers.set('Content-Type', 'application/apply-patch+yaml');
  const res = await fetch(`${kc.getCurrentCluster()!.server}${path}?fieldManager=${manager}&force=false`, { method: 'PATCH', headers, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('@kubernetes/client-node 1.4.0', () => {
  it('reads the written kubeconfig and lists configmaps through the typed API', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'listed' }, data: { a: '1' } } });
    const list = await core.listNamespacedConfigMap({ namespace: ns });
    expect(list.items.map((i) => i.metadata?.name)).toContain('listed');
    expect(list.metadata?.resourceVersion).toMatch(/^\d+$/);
  });

  it('applies server-side with a raw PATCH: 201 when it creates, 200 when it updates', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps/applied`;
    const cm = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns }, data: { v } });
    expect((await serverSideApply(path, cm('1'), 'baton')).status).toBe(201);
    const updated = await serverSideApply(path, cm('2'), 'baton');
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ v: '2' });
  });

  it('watches raw events from a resourceVersion', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const rv = (await core.listNamespacedConfigMap({ namespace: ns })).metadata?.resourceVersion ?? '';
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      void new k8s.Watch(kc).watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: rv, allowWatchBookmarks: true }, (type: string, obj: k8s.V1ConfigMap) => {
        if (type === 'BOOKMARK') return;
        seen.push(`${type} ${obj.metadata?.name ?? ''}`);
        if (seen.length === 2) resolve();
      }, () => undefined).then((req) => done.finally(() => req.abort()));
    });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'watched' } } });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'watched' });
    await done;
    expect(seen).toEqual(['ADDED watched', 'DELETED watched']);
  });

  it('keeps an informer cache in step with the server', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'informed=yes' }), 'informed=yes');
    const added = new Promise<string>((resolve) => informer.on('add', (obj) => resolve(obj.metadata?.name ?? '')));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cached', labels: { informed: 'yes' } } } });
    expect(await added).toBe('cached');
    expect(informer.list(ns).map((o) => o.metadata?.name)).toEqual(['cached']);
    await informer.stop();
  });

  it('updates a Lease with its resourceVersion, and a stale update gets 409 Conflict', async () => {
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const now = new k8s.V1MicroTime();
    const lease = await coord.createNamespacedLease({ namespace: ns, body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: now } } });
    const renewed = await coord.replaceNamespacedLease({ namespace: ns, name: 'leader', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'a', renewTime: new k8s.V1MicroTime() } } });
    expect(renewed.metadata?.resourceVersion).not.toBe(lease.metadata?.resourceVersion);
    const stale = coord.replaceNamespacedLease({ namespace: ns, name: 'leader', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } } });
    await expect(stale).rejects.toMatchObject({ code: 409 });
    const current = await coord.readNamespacedLease({ namespace: ns, name: 'leader' });
    expect(current.spec?.holderIdentity).toBe('a');
    // Lease times are MicroTime: six fractional digits on the wire.
    const raw = (await (await fetch(`${c.url}/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/leader`)).json()) as { spec: { renewTime: string } };
    expect(raw.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });
});
