/**
 * The HTTP contract of the simulated API server, driven with plain fetch: verbs, errors, content
 * types, watches, discovery changes and the fault hooks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultInjector } from '../../../src/cluster/faults/index.js';
import { type TestCluster, startTestCluster } from '../../helpers/cluster.js';

let c: TestCluster;

/** Answers are arbitrary JSON; tests read into them freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
interface Named { name: string; metadata: { name: string } }
interface WatchEvent { type: string; object: Named }
const faults = createFaultInjector([]);

beforeAll(async () => {
  c = await startTestCluster({ interceptor: faults, faultAdmin: faults, watchWindow: 50 });
});
afterAll(async () => {
  await c?.stop();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: Loose }> {
  const init: RequestInit = { method, headers: { 'Content-Type': 'application/json', ...headers } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`${c.url}${path}`, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

const cm = (name: string, data: Record<string, string> = { a: '1' }): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** Reads a watch stream until `count` events arrived (or the stream ends). */
async function readEvents(path: string, count: number, during?: () => Promise<void>): Promise<WatchEvent[]> {
  const res = await fetch(`${c.url}${path}`);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const reader = res.body!.getReader();
  const events: WatchEvent[] = [];
  let buf = '';
  const pending = during?.();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += Buffer.from(value).toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)) as WatchEvent);
      buf = buf.slice(nl + 1);
    }
  }
  await reader.cancel();
  await pending;
  return events;
}

describe('verbs over HTTP', () => {
  it('creates (201), reads, replaces, patches and deletes a namespaced object', async () => {
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'verbs' } });
    const created = await call('POST', '/api/v1/namespaces/verbs/configmaps', cm('one'));
    expect(created.status).toBe(201);
    expect(created.json.metadata.resourceVersion).toMatch(/^\d+$/);
    const got = await call('GET', '/api/v1/namespaces/verbs/configmaps/one');
    expect(got.json.data).toEqual({ a: '1' });
    const put = await call('PUT', '/api/v1/namespaces/verbs/configmaps/one', { ...got.json, data: { a: '2' } });
    expect(put.status).toBe(200);
    const merged = await call('PATCH', '/api/v1/namespaces/verbs/configmaps/one', { data: { b: '3' } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(merged.json.data).toEqual({ a: '2', b: '3' });
    const deleted = await call('DELETE', '/api/v1/namespaces/verbs/configmaps/one', { propagationPolicy: 'Background' });
    expect(deleted.status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/verbs/configmaps/one')).json).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound', message: 'configmaps "one" not found' });
  });

  it('server-side apply answers 201 when it creates and 200 when it updates; dryRun=All persists nothing', async () => {
    const path = '/api/v1/namespaces/verbs/configmaps/ssa?fieldManager=test&force=false';
    const apply = { 'Content-Type': 'application/apply-patch+yaml' };
    expect((await call('PATCH', path, cm('ssa'), apply)).status).toBe(201);
    expect((await call('PATCH', path, cm('ssa', { a: '9' }), apply)).status).toBe(200);
    const dry = await call('PATCH', `${path}&dryRun=All`, cm('ssa', { a: 'dry' }), apply);
    expect(dry.json.data).toEqual({ a: 'dry' });
    expect((await call('GET', '/api/v1/namespaces/verbs/configmaps/ssa')).json.data).toEqual({ a: '9' });
    const noManager = await call('PATCH', '/api/v1/namespaces/verbs/configmaps/ssa', cm('ssa'), apply);
    expect(noManager.status).toBe(422);
  });

  it('derives the Update field manager from the User-Agent when fieldManager is absent', async () => {
    await call('POST', '/api/v1/namespaces/verbs/configmaps', cm('ua'), { 'User-Agent': 'kubectl-label/v1.33.1 (linux/amd64) kubernetes/x' });
    const got = await call('GET', '/api/v1/namespaces/verbs/configmaps/ua');
    expect(got.json.metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('kubectl-label');
  });

  it('lists with labelSelector, fieldSelector and limit/continue', async () => {
    for (const n of ['l1', 'l2', 'l3']) await call('POST', '/api/v1/namespaces/verbs/configmaps', { ...cm(n), metadata: { name: n, labels: { set: 'l' } } });
    const byLabel = await call('GET', '/api/v1/namespaces/verbs/configmaps?labelSelector=set%3Dl');
    expect(byLabel.json.kind).toBe('ConfigMapList');
    expect(byLabel.json.items.map((i: Named) => i.metadata.name)).toEqual(['l1', 'l2', 'l3']);
    const byName = await call('GET', '/api/v1/namespaces/verbs/configmaps?fieldSelector=metadata.name%3Dl2');
    expect(byName.json.items).toHaveLength(1);
    const page = await call('GET', '/api/v1/namespaces/verbs/configmaps?labelSelector=set%3Dl&limit=2');
    expect(page.json.items).toHaveLength(2);
    const rest = await call('GET', `/api/v1/namespaces/verbs/configmaps?labelSelector=set%3Dl&limit=2&continue=${encodeURIComponent(page.json.metadata.continue)}`);
    expect(rest.json.items.map((i: Named) => i.metadata.name)).toEqual(['l3']);
  });

  it('deletes a collection by label', async () => {
    const res = await call('DELETE', '/api/v1/namespaces/verbs/configmaps?labelSelector=set%3Dl');
    expect(res.json.items).toHaveLength(3);
    expect((await call('GET', '/api/v1/namespaces/verbs/configmaps?labelSelector=set%3Dl')).json.items).toEqual([]);
  });

  it('serves the status and scale subresources', async () => {
    const dep = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await call('POST', '/apis/apps/v1/namespaces/verbs/deployments', dep)).status).toBe(201);
    const scale = await call('GET', '/apis/apps/v1/namespaces/verbs/deployments/web/scale');
    expect(scale.json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 } });
    await call('PATCH', '/apis/apps/v1/namespaces/verbs/deployments/web/scale', { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect((await call('GET', '/apis/apps/v1/namespaces/verbs/deployments/web')).json.spec.replicas).toBe(3);
    const status = await call('PATCH', '/apis/apps/v1/namespaces/verbs/deployments/web/status', { status: { readyReplicas: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(status.json.status.readyReplicas).toBe(2);
  });

  it.each([
    ['a PATCH with an unknown content type', 415, 'UnsupportedMediaType', 'PATCH', '/api/v1/namespaces/verbs/configmaps/x', { 'Content-Type': 'text/plain' }],
    ['a strategic merge patch of a custom resource', 415, 'UnsupportedMediaType', 'PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x', { 'Content-Type': 'application/yaml' }],
    ['a POST to a named object', 405, 'MethodNotAllowed', 'POST', '/api/v1/namespaces/verbs/configmaps/x', {}],
    ['a PUT to a collection', 405, 'MethodNotAllowed', 'PUT', '/api/v1/namespaces/verbs/configmaps', {}],
    ['an unknown resource', 404, 'NotFound', 'GET', '/api/v1/namespaces/verbs/gizmos', {}],
    ['a bad dryRun value', 400, 'BadRequest', 'POST', '/api/v1/namespaces/verbs/configmaps?dryRun=Some', {}],
    ['a bad fieldValidation value', 400, 'BadRequest', 'POST', '/api/v1/namespaces/verbs/configmaps?fieldValidation=Loose', {}],
  ])('GIVEN %s THEN the answer is a %i %s Status', async (_n, code, reason, method, path, headers) => {
    const res = await call(method, path, method === 'GET' ? undefined : cm('x'), headers);
    expect(res.status).toBe(code);
    expect(res.json).toMatchObject({ kind: 'Status', status: 'Failure', code, reason });
  });

  it('answers a create in a missing namespace with 404 namespaces "x" not found', async () => {
    const res = await call('POST', '/api/v1/namespaces/nowhere/configmaps', cm('x'));
    expect(res.json).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
  });
});

describe('watches', () => {
  it('streams synthetic ADDED events then live events, one JSON object per line, with Python-style booleans', async () => {
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } });
    await call('POST', '/api/v1/namespaces/watched/configmaps', cm('before'));
    const events = await readEvents('/api/v1/namespaces/watched/configmaps?watch=True', 4, async () => {
      await call('POST', '/api/v1/namespaces/watched/configmaps', cm('after'));
      await call('DELETE', '/api/v1/namespaces/watched/configmaps/after');
    });
    // The namespace's own kube-root-ca.crt is there from the start, as on a real cluster.
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'before'], ['ADDED', 'kube-root-ca.crt'], ['ADDED', 'after'], ['DELETED', 'after']]);
  });

  it('resumes from a resourceVersion on the legacy /watch/ path', async () => {
    const list = await call('GET', '/api/v1/namespaces/watched/configmaps');
    const events = await readEvents(`/api/v1/watch/namespaces/watched/configmaps?resourceVersion=${list.json.metadata.resourceVersion}`, 1, async () => {
      await call('PATCH', '/api/v1/namespaces/watched/configmaps/before', { data: { b: '2' } }, { 'Content-Type': 'application/merge-patch+json' });
    });
    expect(events.map((e) => e.type)).toEqual(['MODIFIED']);
  });

  it('sends an ERROR event with a 410 Expired Status for a version older than the window', async () => {
    for (let i = 0; i < 60; i++) await call('PATCH', '/api/v1/namespaces/watched/configmaps/before', { data: { n: String(i) } }, { 'Content-Type': 'application/merge-patch+json' });
    const events = await readEvents('/api/v1/namespaces/watched/configmaps?watch=1&resourceVersion=2', 1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  it('ends the stream after timeoutSeconds', async () => {
    const started = Date.now();
    const events = await readEvents('/api/v1/namespaces/watched/configmaps?watch=true&timeoutSeconds=1', 100);
    expect(events.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('marks the end of initial events with a bookmark when asked (sendInitialEvents)', async () => {
    const events = await readEvents('/api/v1/namespaces/watched/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan', 3);
    expect(events[2]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  });

  it('sends PartialObjectMetadata per event to metadata-only watchers', async () => {
    const res = await fetch(`${c.url}/api/v1/namespaces/watched/configmaps?watch=1`, { headers: { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json' } });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    const first = JSON.parse(Buffer.from(value).toString('utf8').split('\n')[0]!);
    expect(first.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'before' }) });
  });

  it('sends one-row Tables per event when asked for Tables (kubectl get -w)', async () => {
    const res = await fetch(`${c.url}/api/v1/namespaces/watched/configmaps?watch=1`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    const first = JSON.parse(Buffer.from(value).toString('utf8').split('\n')[0]!);
    expect(first.object).toMatchObject({ kind: 'Table', columnDefinitions: [{ name: 'Name' }, { name: 'Data' }, { name: 'Age' }] });
    expect(first.object.rows).toHaveLength(1);
  });
});

describe('discovery, OpenAPI and health', () => {
  it.each([['/healthz'], ['/readyz'], ['/livez']])('answers %s with ok', async (path) => {
    const res = await fetch(`${c.url}${path}`);
    expect(await res.text()).toBe('ok');
  });

  it('reports version 1.33 so the kubectl dispatcher picks kubectl 1.33', async () => {
    expect((await call('GET', '/version')).json).toMatchObject({ major: '1', minor: '33' });
  });

  it.each([['v2'], ['v2beta1']])('serves aggregated discovery %s with exactly the negotiated Content-Type', async (v) => {
    const mediaType = `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
    const res = await call('GET', '/apis', undefined, { Accept: `${mediaType},application/json` });
    expect(res.headers.get('content-type')).toBe(mediaType);
    expect(res.json.kind).toBe('APIGroupDiscoveryList');
  });

  it('serves OpenAPI v2 as protobuf with a valid media type', async () => {
    const res = await fetch(`${c.url}/openapi/v2`, { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(res.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  it('changes what discovery and OpenAPI say when a CRD comes and goes', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.org' },
      spec: {
        group: 'example.org', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    expect((await call('GET', '/apis/example.org/v1')).json.resources.map((r: Named) => r.name)).toContain('gadgets');
    expect(Object.keys((await call('GET', '/openapi/v3')).json.paths)).toContain('apis/example.org/v1');
    const aggregated = { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };
    const groups = async (): Promise<string[]> => {
      const items = (await call('GET', '/apis', undefined, aggregated)).json.items as { metadata: { name: string } }[];
      return items.map((i) => i.metadata.name);
    };
    expect(await groups()).toContain('example.org');
    await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.org');
    await expect.poll(async () => (await call('GET', '/apis/example.org/v1')).status).toBe(404);
    expect((await call('GET', '/apis')).json.groups.map((g: Named) => g.name)).not.toContain('example.org');
    expect(await groups()).not.toContain('example.org');
    expect(Object.keys((await call('GET', '/openapi/v3')).json.paths)).not.toContain('apis/example.org/v1');
  });
});

describe('fault injection hooks', () => {
  it('applies an error decision: 429 with Retry-After and a TooManyRequests Status', async () => {
    const set = await call('PUT', '/baton-sim/faults', [{ verb: 'list', resource: 'secrets', error: 429, retryAfterSeconds: 2 }]);
    expect(set.status).toBeLessThan(300);
    const res = await call('GET', '/api/v1/namespaces/verbs/secrets');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.json).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 2 } });
    await call('DELETE', '/baton-sim/faults');
    expect((await call('GET', '/api/v1/namespaces/verbs/secrets')).status).toBe(200);
  });

  it('cuts a watch after the given time', async () => {
    faults.setRules([{ verb: 'watch', resource: 'configmaps', dropWatchAfterMs: 200 }]);
    const started = Date.now();
    const res = await fetch(`${c.url}/api/v1/namespaces/watched/configmaps?watch=1`);
    await expect(res.text()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    faults.clear();
  });
});
