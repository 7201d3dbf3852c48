/**
 * The API server's in-process client (what the simulated controllers use by default) against the HTTP
 * client on the same cluster: the same requests through both give the same answers and errors (with
 * server-set values masked), the same watch events in the same order (selector transitions, 410
 * Gone, bookmarks), the same injected faults; and no object is shared with the store either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFaultInjector, type FaultInjector } from '../../../src/cluster/faults/index.js';
import type { KubeClient, WatchEvent } from '../../../src/kube/client.js';
import { KubeApiError, KubeTransportError } from '../../../src/kube/errors.js';
import { createKubeClient, type HttpKubeClient } from '../../../src/kube/http-client.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { BatonError } from '../../../src/errors.js';
import { type TestCluster, startTestCluster } from '../../helpers/cluster.js';
import { until } from '../../helpers/wait.js';

let c: TestCluster;
let http: HttpKubeClient;
let local: KubeClient;
let faults: FaultInjector;

beforeAll(async () => {
  faults = createFaultInjector([]);
  c = await startTestCluster({ interceptor: faults, faultAdmin: faults, watchWindow: 200, bookmarkIntervalMs: 50 });
  http = await createKubeClient({ url: c.url });
  local = c.inProcessClient();
});
afterAll(async () => {
  http?.close();
  await c?.stop();
});

const MASKED = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'time', 'continue']);

/** A value with what the server sets per request masked and the scenario's namespace named `NS`. */
function mask(value: unknown, ns: string): unknown {
  if (typeof value === 'string') return value.split(ns).join('NS').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UID');
  if (Array.isArray(value)) return value.map((v) => mask(v, ns));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = MASKED.has(k) && v !== undefined ? '*' : mask(v, ns);
  return out;
}

/** What a step gave: the masked answer, or the error as a caller tells errors apart. */
async function step(ns: string, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: mask(await run(), ns) };
  } catch (err) {
    if (err instanceof KubeApiError) return { apiError: mask({ status: err.status, reason: err.reason, body: err.body, retryAfterSeconds: err.retryAfterSeconds }, ns) };
    if (err instanceof KubeTransportError) return { transportError: true };
    if (err instanceof BatonError) return { batonError: err.code, message: mask(err.message, ns) };
    return { thrown: String(err) };
  }
}

const cm = (ns: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' }, ...extra });
const deployment = (ns: string, name: string): KubeObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } } },
});

/** Every verb the controllers use (and the errors they meet), in one namespace, as a transcript. */
async function transcript(client: KubeClient, ns: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const s = async (run: () => Promise<unknown>): Promise<void> => void out.push(await step(ns, run));
  await s(() => client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  await s(() => client.create(cm(ns, 'a'), { fieldManager: 'kube-controller-manager' }));
  // No fieldManager: the server's default (the HTTP client sends no User-Agent).
  await s(() => client.create(cm(ns, 'b')));
  await s(() => client.create(cm(ns, 'a')));
  await s(() => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }));
  await s(() => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'missing' }));
  await s(() => client.update({ ...cm(ns, 'a'), metadata: { name: 'a', namespace: ns, resourceVersion: '1' } }));
  const a = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' });
  await s(() => client.update({ ...cm(ns, 'a', { data: { a: '2' } }), metadata: { ...a?.metadata, name: 'a' } }, { fieldManager: 'kubelet' }));
  await s(() => client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }, { data: { a: null, y: '2' } }, 'merge', { fieldManager: 'kube-scheduler' }));
  await s(() => client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }, [{ op: 'add', path: '/data/z', value: '3' }], 'json'));
  await s(() => client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }, { data: { z: '4' } }, 'json'));
  await s(() => client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' }, { status: { x: 1 } }, 'merge', { subresource: 'status' }));
  await s(() => client.create(deployment(ns, 'd'), { fieldManager: 'baton' }));
  await s(() => client.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'd' }, { status: { replicas: 5, observedGeneration: 1 } }, 'merge', { subresource: 'status', fieldManager: 'kube-controller-manager' }));
  const d = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'd' });
  // A PUT of the main resource leaves status alone and bumps the generation; a status PUT changes only status.
  await s(() => client.update({ ...deployment(ns, 'd'), metadata: { ...d?.metadata }, spec: { ...(d?.spec as object), replicas: 2 }, status: { replicas: 9 } }));
  const d2 = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'd' });
  await s(() => client.updateStatus({ ...(d2 as KubeObject), spec: { replicas: 7 }, status: { observedGeneration: 2 } }));
  await s(() => client.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'd' }, { spec: { replicas: 3 } }, 'merge', { subresource: 'scale' }));
  await s(() => client.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'bad', namespace: ns }, spec: { replicas: -1 } }));
  await s(() => client.create(cm(`${ns}-absent`, 'x')));
  await s(() => client.apply(cm(ns, 'applied', { data: { k: 'one' } }), { fieldManager: 'one' }));
  await s(() => client.apply(cm(ns, 'applied', { data: { k: 'two' } }), { fieldManager: 'two' }));
  await s(() => client.apply(cm(ns, 'applied', { data: { k: 'two' } }), { fieldManager: 'two', force: true }));
  await s(() => client.apply(cm(ns, 'applied', { data: { k: 'three' } }), { fieldManager: '' }));
  await s(() => client.apply(cm(ns, 'applied', { data: { k: 'dry' } }), { fieldManager: 'two', dryRun: true }));
  // What a JSON body cannot carry: undefined properties vanish, a Date is its ISO text.
  await s(() => client.create({ ...cm(ns, 'loose'), metadata: { name: 'loose', namespace: ns, labels: { kept: 'yes', dropped: undefined } }, data: { when: new Date(0) } } as unknown as KubeObject));
  await s(() => client.create({
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev', namespace: ns },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: undefined }, reason: 'Tested', message: 'm', type: 'Normal', count: 1,
  }));
  await s(() => client.patch({ apiVersion: 'v1', kind: 'Event', namespace: ns, name: 'ev' }, { count: 2 }, 'merge'));
  await s(() => client.list('v1', 'ConfigMap', ns));
  await s(() => client.list('v1', 'ConfigMap', ns, { labelSelector: 'kept=yes' }));
  await s(() => client.list('v1', 'ConfigMap', ns, { limit: 2 }));
  await s(() => client.list('v1', 'ConfigMap', ns, { limit: 2, allPages: true }));
  await s(() => client.list('v1', 'ConfigMap', ns, { labelSelector: '!!bad' }));
  await s(() => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }, { preconditions: { uid: 'not-its-uid' } }));
  await s(() => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }, { dryRun: true }));
  await s(() => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }, { propagationPolicy: 'Background', gracePeriodSeconds: 0 }));
  await s(() => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'b' }));
  await s(() => client.update({ ...cm(ns, 'guarded'), metadata: { name: 'guarded', namespace: ns, finalizers: ['x.dev/hold'] } }));
  await s(() => client.create({ ...cm(ns, 'guarded'), metadata: { name: 'guarded', namespace: ns, finalizers: ['x.dev/hold'] } }));
  await s(() => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'guarded' }));
  await s(() => client.resourceFor('example.dev/v1', 'Widget'));
  await s(() => client.resourceFor('apps/v1', 'Deployment'));
  await s(() => client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: '' }));
  await s(() => client.get({ apiVersion: 'v1', kind: 'Node', name: 'absent-node' }));
  await s(() => client.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: `${ns}-node`, namespace: 'ignored' } }));
  await s(() => client.create({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: {}, spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }));
  return out;
}

describe('the in-process client answers as the HTTP client does', () => {
  it('GIVEN the same requests through both WHEN compared THEN answers and errors are the same, server-set values apart', async () => {
    const overHttp = await transcript(http, 'par-http');
    const inProcess = await transcript(local, 'par-local');
    expect(inProcess).toEqual(overHttp);
    // The transcript is not vacuous: it holds answers and each kind of error.
    const text = JSON.stringify(overHttp);
    for (const reason of ['AlreadyExists', 'Conflict', 'Invalid', 'NotFound', 'BadRequest', 'KUBE_NO_NAME']) expect(text).toContain(reason);
    expect(text).toContain('"manager":"unknown"');
    expect(text).not.toContain('dropped');
  });
});

/** Collects a watch's events (bookmarks apart) until `enough` of them, or the watch ends. */
function collect(client: KubeClient, ns: string, options: { resourceVersion: string; labelSelector?: string }, signal: AbortSignal): { events: WatchEvent[]; bookmarks: number; done: Promise<unknown> } {
  const state = { events: [] as WatchEvent[], bookmarks: 0, done: Promise.resolve() as Promise<unknown> };
  state.done = (async () => {
    for await (const ev of client.watch('v1', 'ConfigMap', ns, { ...options, allowWatchBookmarks: true, signal })) {
      if (ev.type === 'BOOKMARK') state.bookmarks++;
      else state.events.push(ev);
    }
  })().catch((err: unknown) => err);
  return state;
}

const summary = (events: WatchEvent[]): string[] => events.map((e) => `${e.type} ${e.object.metadata.name ?? ''} ${e.object.metadata.resourceVersion ?? ''} ${JSON.stringify(e.object.data)}`);

describe('watches', () => {
  it('GIVEN writes, deletions and label changes WHEN both clients watch THEN they see the same events in the same order, and bookmarks', async () => {
    const ns = 'watched';
    await http.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const rv = (await http.list('v1', 'ConfigMap', ns)).resourceVersion;
    const abort = new AbortController();
    const all = [collect(http, ns, { resourceVersion: rv }, abort.signal), collect(local, ns, { resourceVersion: rv }, abort.signal)];
    const selected = [collect(http, ns, { resourceVersion: rv, labelSelector: 'app=x' }, abort.signal), collect(local, ns, { resourceVersion: rv, labelSelector: 'app=x' }, abort.signal)];
    const writer = c.inProcessClient();
    for (let i = 0; i < 5; i++) await writer.create(cm(ns, `w${i}`, { metadata: { name: `w${i}`, namespace: ns, labels: { app: 'x' } } }));
    await writer.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'w1' }, { metadata: { labels: { app: 'y' } } }, 'merge');
    await writer.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'w1' }, { data: { a: 'changed' } }, 'merge');
    await writer.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'w1' }, { metadata: { labels: { app: 'x' } } }, 'merge');
    await writer.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'w2' });
    // Writes in one synchronous burst (a namespace's deletion would do the same): all queued before the consumer runs.
    await Promise.all([0, 1, 2].map((i) => writer.create(cm(ns, `burst${i}`))));
    await until(() => all.every((w) => w.events.length === 12) && selected.every((w) => w.events.length === 8), 10_000, 'every watch saw every event');
    await until(() => [...all, ...selected].every((w) => w.bookmarks > 0), 10_000, 'bookmarks on every watch');
    abort.abort();
    await Promise.all([...all, ...selected].map((w) => w.done));
    expect(summary(all[1]?.events ?? [])).toEqual(summary(all[0]?.events ?? []));
    expect(summary(selected[1]?.events ?? [])).toEqual(summary(selected[0]?.events ?? []));
    // The selector watch saw w1 leave (DELETED) and come back (ADDED), and not its change while away.
    expect(summary(selected[1]?.events ?? []).filter((e) => e.includes(' w1 ')).map((e) => e.split(' ')[0])).toEqual(['ADDED', 'DELETED', 'ADDED']);
    // Each event's object is complete, as over HTTP.
    for (const ev of all[1]?.events ?? []) expect([ev.object.apiVersion, ev.object.kind]).toEqual(['v1', 'ConfigMap']);
  });

  it('GIVEN a resourceVersion older than the window WHEN both clients watch from it THEN both fail with the same 410 Expired', async () => {
    const ns = 'expired';
    await http.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const old = (await http.list('v1', 'ConfigMap', ns)).resourceVersion;
    for (let i = 0; i < 210; i++) await local.create(cm(ns, `e${i}`));
    const errors = await Promise.all([http, local].map(async (client) => {
      try {
        for await (const _ of client.watch('v1', 'ConfigMap', ns, { resourceVersion: old })) return 'an event';
        return 'a clean end';
      } catch (err) {
        return err instanceof KubeApiError ? { status: err.status, reason: err.reason, body: err.body } : String(err);
      }
    }));
    expect(errors[0]).toMatchObject({ status: 410, reason: 'Expired' });
    expect(errors[1]).toEqual(errors[0]);
  });

  it('GIVEN an in-process watch WHEN the cluster`s server stops THEN the watch breaks as a dropped connection does', async () => {
    const other = await startTestCluster();
    try {
      const client = other.inProcessClient();
      const rv = (await client.list('v1', 'ConfigMap', 'default')).resourceVersion;
      const watching = collect(client, 'default', { resourceVersion: rv }, new AbortController().signal);
      await client.create(cm('default', 'before-stop'));
      await until(() => watching.events.length === 1, 5000, 'the event before the stop');
      await other.stop();
      expect(await watching.done).toBeInstanceOf(KubeTransportError);
      await expect(client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'before-stop' })).rejects.toBeInstanceOf(KubeTransportError);
    } finally {
      await other.stop();
    }
  });
});

describe('faults hit the in-process client as they hit HTTP requests', () => {
  it('GIVEN an injected 503 with Retry-After on creates THEN both clients get the same error', async () => {
    const errors: unknown[] = [];
    for (const client of [http, local]) {
      faults.setRules([{ verb: 'create', resource: 'configmaps', error: 503, retryAfterSeconds: 2, count: 1 }]);
      errors.push(await step('default', () => client.create(cm('default', 'refused'))));
      expect(faults.rules()[0]?.hits).toBe(1);
    }
    faults.clear();
    expect(errors[0]).toMatchObject({ apiError: { status: 503, reason: 'ServiceUnavailable', retryAfterSeconds: 2 } });
    expect(errors[1]).toEqual(errors[0]);
  });

  it('GIVEN lists answered 429 twice THEN both clients retry (reads are idempotent) and get the list', async () => {
    for (const client of [http, local]) {
      faults.setRules([{ verb: 'list', resource: 'configmaps', namespace: 'kube-public', error: 429, retryAfterSeconds: 0, count: 2 }]);
      const list = await client.list('v1', 'ConfigMap', 'kube-public');
      expect(list.items.map((i) => i.metadata.name)).toContain('kube-root-ca.crt');
      expect(faults.rules()[0]?.hits).toBe(2);
    }
    faults.clear();
  });

  it('GIVEN watches dropped after 100 ms THEN both clients get the events before it, then a transport error', async () => {
    const ns = 'dropped';
    await http.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const rv = (await http.list('v1', 'ConfigMap', ns)).resourceVersion;
    // Written before the watches start, so that each gets it (replayed) however late it starts under load.
    await http.create(cm(ns, 'seen'));
    faults.setRules([{ verb: 'watch', resource: 'configmaps', dropWatchAfterMs: 100 }]);
    const watches = [collect(http, ns, { resourceVersion: rv }, new AbortController().signal), collect(local, ns, { resourceVersion: rv }, new AbortController().signal)];
    const ends = await Promise.all(watches.map((w) => w.done));
    faults.clear();
    for (const [i, w] of watches.entries()) {
      expect(summary(w.events), `watch ${i}`).toEqual(summary(watches[0]?.events ?? []));
      expect(ends[i], `watch ${i}`).toBeInstanceOf(KubeTransportError);
    }
    expect(watches[0]?.events.length).toBe(1);
  });
});

describe('no object is shared with the store', () => {
  const ns = 'aliasing';
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'mine' };
  const stored = (): Record<string, unknown> => c.store.get(c.store.registry.lookupKind('', 'v1', 'ConfigMap')!, ns, 'mine').data as Record<string, unknown>;

  it('GIVEN objects the in-process client sent or received WHEN the caller changes them THEN the stored object does not change', async () => {
    await local.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const body = cm(ns, 'mine', { data: { k: 'v' } });
    const created = await local.create(body);
    (body.data as Record<string, string>).k = 'changed body';
    (created.data as Record<string, string>).k = 'changed answer';
    created.metadata.labels = { added: 'later' };
    expect(stored()).toEqual({ k: 'v' });

    const patch = { data: { nested: 'p' } };
    const patched = await local.patch(ref, patch, 'merge');
    patch.data.nested = 'changed patch';
    (patched.data as Record<string, string>).nested = 'changed answer';
    expect(stored()).toEqual({ k: 'v', nested: 'p' });

    const got = await local.get(ref);
    (got?.data as Record<string, string>).k = 'changed get';
    const listed = await local.list('v1', 'ConfigMap', ns);
    for (const item of listed.items) (item.data as Record<string, string>).k = 'changed list';
    expect(stored()).toEqual({ k: 'v', nested: 'p' });
    expect((await local.get(ref))?.data).toEqual({ k: 'v', nested: 'p' });
  });

  it('GIVEN two in-process watchers WHEN one changes an event`s object THEN neither the store nor the other watcher sees it', async () => {
    const rv = (await local.list('v1', 'ConfigMap', ns)).resourceVersion;
    const abort = new AbortController();
    const first = collect(local, ns, { resourceVersion: rv }, abort.signal);
    const second = collect(c.inProcessClient(), ns, { resourceVersion: rv }, abort.signal);
    await local.patch(ref, { data: { w: '1' } }, 'merge');
    await until(() => first.events.length === 1 && second.events.length === 1, 5000, 'both watchers saw the patch');
    const seen = first.events[0]?.object as KubeObject;
    (seen.data as Record<string, string>).w = 'changed event';
    expect(second.events[0]?.object.data).toEqual({ k: 'v', nested: 'p', w: '1' });
    expect(second.events[0]?.object).not.toBe(seen);
    expect(stored()).toEqual({ k: 'v', nested: 'p', w: '1' });
    abort.abort();
    await Promise.all([first.done, second.done]);
  });
});
