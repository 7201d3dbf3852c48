/** Contract: label and field selectors, pagination, and watches (ordering, resume, 410 Gone, bookmarks). */
import { describe, expect, it } from 'vitest';
import type { StoreWatchEvent } from '../../../src/cluster/store/index.js';
import { apiError, configMap, newStore, pod, types, type Loose } from './fixtures.js';
import { until } from '../../helpers/wait.js';

function seeded() {
  const store = newStore();
  const t = types(store);
  store.create(t.cm, 'default', configMap('a', {}, { app: 'web', tier: 'front' }));
  store.create(t.cm, 'default', configMap('b', {}, { app: 'web', tier: 'back' }));
  store.create(t.cm, 'default', configMap('c', {}, { app: 'db' }));
  store.create(t.cm, 'default', configMap('d'));
  store.create(t.ns, undefined, { metadata: { name: 'other' } });
  store.create(t.cm, 'other', configMap('e', {}, { app: 'web' }));
  return { store, t };
}

describe('label selectors', () => {
  it.each([
    ['equality', 'app=web', ['a', 'b']],
    ['double equals', 'app==web', ['a', 'b']],
    ['inequality (matches objects without the label, such as the namespace\'s kube-root-ca.crt)', 'app!=web', ['c', 'd', 'kube-root-ca.crt']],
    ['set membership', 'tier in (front,middle)', ['a']],
    ['set exclusion (matches objects without the label)', 'tier notin (front)', ['b', 'c', 'd', 'kube-root-ca.crt']],
    ['existence', 'tier', ['a', 'b']],
    ['absence', '!app', ['d', 'kube-root-ca.crt']],
    ['a conjunction', 'app=web,tier!=front', ['b']],
  ])('%s: %s', (_name, selector, names) => {
    const { store, t } = seeded();
    expect(store.list(t.cm, 'default', { labelSelector: selector }).items.map((o) => o.metadata.name)).toEqual(names);
  });

  it('a malformed selector is 400 BadRequest', () => {
    const { store, t } = seeded();
    expect(apiError(() => store.list(t.cm, 'default', { labelSelector: 'a in b' })).httpCode).toBe(400);
  });
});

describe('field selectors', () => {
  it.each([
    ['metadata.name', 'metadata.name=b', ['default/b']],
    ['metadata.namespace across namespaces', 'metadata.namespace=other', ['other/e', 'other/kube-root-ca.crt']],
    ['negated name', 'metadata.name!=a,metadata.namespace=default', ['default/b', 'default/c', 'default/d', 'default/kube-root-ca.crt']],
    // A name pinned by `=`/`==` is looked up instead of walking the namespace: the rest of the selector still applies.
    ['a name in every namespace, in namespace order', 'metadata.name==kube-root-ca.crt', ['default/kube-root-ca.crt', 'kube-node-lease/kube-root-ca.crt', 'kube-public/kube-root-ca.crt', 'kube-system/kube-root-ca.crt', 'other/kube-root-ca.crt']],
    ['a name and a namespace', 'metadata.name=kube-root-ca.crt,metadata.namespace=other', ['other/kube-root-ca.crt']],
    ['two different names', 'metadata.name=a,metadata.name=b', []],
    ['a name and a negated name', 'metadata.name=a, metadata.name!=b', ['default/a']],
    ['a missing name', 'metadata.name=zz', []],
  ])('%s', (_name, selector, keys) => {
    const { store, t } = seeded();
    expect(store.list(t.cm, undefined, { fieldSelector: selector }).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(keys);
  });

  it('a pinned name in one namespace, with a label selector and a page limit', () => {
    const { store, t } = seeded();
    const names = (o: { labelSelector?: string; fieldSelector: string; limit?: number }): string[] => store.list(t.cm, 'default', o).items.map((x) => x.metadata.name ?? '');
    expect(names({ fieldSelector: 'metadata.name=a' })).toEqual(['a']);
    expect(names({ fieldSelector: 'metadata.name=a', labelSelector: 'app=web' })).toEqual(['a']);
    expect(names({ fieldSelector: 'metadata.name=a', labelSelector: 'app=db' })).toEqual([]);
    expect(names({ fieldSelector: 'metadata.name=e' })).toEqual([]);
    expect(store.list(t.cm, 'default', { fieldSelector: 'metadata.name=a', limit: 1 })).toMatchObject({ items: [{ metadata: { name: 'a' } }] });
    expect(store.list(t.cm, 'default', { fieldSelector: 'metadata.name=a', limit: 1 }).continue).toBeUndefined();
  });

  it('pods select on status.phase and spec.nodeName', () => {
    const store = newStore();
    const t = types(store);
    const p1 = store.create(t.pod, 'default', pod('p1'));
    store.create(t.pod, 'default', pod('p2'));
    store.update(t.pod, 'default', 'p1', { ...p1, status: { phase: 'Running' } }, { subresource: 'status' });
    expect(store.list(t.pod, 'default', { fieldSelector: 'status.phase=Running' }).items.map((o) => o.metadata.name)).toEqual(['p1']);
    expect(store.list(t.pod, 'default', { fieldSelector: 'spec.nodeName=' }).items).toHaveLength(2);
  });

  it('an unsupported field is 400 with the real message', () => {
    const { store, t } = seeded();
    expect(apiError(() => store.list(t.cm, 'default', { fieldSelector: 'data.x=1' })).status.message).toBe('field label not supported: data.x');
  });
});

describe('pagination', () => {
  it('GIVEN five objects in a namespace (four and its kube-root-ca.crt) WHEN listed two at a time THEN continue tokens walk them all in order, with remainingItemCount', () => {
    const { store, t } = seeded();
    const seen: string[] = [];
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    do {
      const page = store.list(t.cm, 'default', { limit: 2, ...(token ? { continue: token } : {}) });
      seen.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      remaining.push(page.remainingItemCount);
      token = page.continue;
    } while (token);
    expect(seen).toEqual(['default/a', 'default/b', 'default/c', 'default/d', 'default/kube-root-ca.crt']);
    expect(remaining).toEqual([3, 1, undefined]);
  });

  it('an invalid continue token is 400', () => {
    const { store, t } = seeded();
    expect(apiError(() => store.list(t.cm, undefined, { continue: 'garbage!' })).httpCode).toBe(400);
  });
});

describe('watch', () => {
  it('GIVEN a watch from a list resourceVersion WHEN objects change THEN events arrive in order with increasing versions', () => {
    const store = newStore();
    const t = types(store);
    const start = store.list(t.cm, 'default').resourceVersion;
    const events: StoreWatchEvent[] = [];
    const w = store.watch(t.cm, 'default', { resourceVersion: start }, (e) => events.push(e));
    const a = store.create(t.cm, 'default', configMap('a', { v: '1' }));
    store.update(t.cm, 'default', 'a', { ...a, data: { v: '2' } });
    store.delete(t.cm, 'default', 'a');
    w.stop();
    store.create(t.cm, 'default', configMap('after-stop'));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const rvs = events.map((e) => Number((e.object as Loose).metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    expect(new Set(rvs).size).toBe(3);
  });

  it('resuming from a resourceVersion replays exactly the events after it', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('a'));
    const mark = store.resourceVersion();
    store.create(t.cm, 'default', configMap('b'));
    store.create(t.cm, 'default', configMap('c'));
    const events: StoreWatchEvent[] = [];
    store.watch(t.cm, 'default', { resourceVersion: mark }, (e) => events.push(e)).stop();
    expect(events.map((e) => `${e.type} ${(e.object as Loose).metadata.name}`)).toEqual(['ADDED b', 'ADDED c']);
  });

  it('without a resourceVersion, existing objects arrive first as synthetic ADDED events', () => {
    const { store, t } = seeded();
    const events: StoreWatchEvent[] = [];
    store.watch(t.cm, 'default', { labelSelector: 'app=web' }, (e) => events.push(e)).stop();
    expect(events.map((e) => `${e.type} ${(e.object as Loose).metadata.name}`)).toEqual(['ADDED a', 'ADDED b']);
  });

  it('an object leaving a label selector arrives as DELETED, one entering as ADDED', () => {
    const store = newStore();
    const t = types(store);
    const a = store.create(t.cm, 'default', configMap('a', {}, { app: 'web' }));
    const events: StoreWatchEvent[] = [];
    const w = store.watch(t.cm, 'default', { resourceVersion: store.resourceVersion(), labelSelector: 'app=web' }, (e) => events.push(e));
    const moved = store.update(t.cm, 'default', 'a', { ...a, metadata: { ...a.metadata, labels: { app: 'db' } } });
    store.update(t.cm, 'default', 'a', { ...moved, metadata: { ...moved.metadata, labels: { app: 'web' } } });
    w.stop();
    expect(events.map((e) => e.type)).toEqual(['DELETED', 'ADDED']);
  });

  it('GIVEN a small event window WHEN a watch resumes from a version that fell out THEN 410 Gone (Expired)', () => {
    const store = newStore({ watchWindow: 3 });
    const t = types(store);
    const old = store.resourceVersion();
    for (const n of ['a', 'b', 'c', 'd', 'e']) store.create(t.cm, 'default', configMap(n));
    const err = apiError(() => store.watch(t.cm, 'default', { resourceVersion: old }, () => {}));
    expect(err.status).toMatchObject({ code: 410, reason: 'Expired', message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/) });
    const recent = String(Number(store.resourceVersion()) - 2);
    const events: StoreWatchEvent[] = [];
    store.watch(t.cm, 'default', { resourceVersion: recent }, (e) => events.push(e)).stop();
    expect(events).toHaveLength(2);
  });

  it('sendInitialEvents ends the initial ADDED events with the k8s.io/initial-events-end bookmark', () => {
    const { store, t } = seeded();
    const events: StoreWatchEvent[] = [];
    store.watch(t.cm, 'other', { sendInitialEvents: true, allowWatchBookmarks: true }, (e) => events.push(e)).stop();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(events[2]?.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: store.resourceVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } } });
  });

  it('periodic bookmarks carry the current resourceVersion', async () => {
    const store = newStore({ bookmarkIntervalMs: 5 });
    const t = types(store);
    const events: StoreWatchEvent[] = [];
    const w = store.watch(t.cm, 'default', { resourceVersion: store.resourceVersion(), allowWatchBookmarks: true }, (e) => events.push(e));
    await until(() => events.length >= 2, 10_000, 'two periodic bookmarks');
    w.stop();
    expect(events.every((e) => e.type === 'BOOKMARK' && (e.object as Loose).metadata.resourceVersion === store.resourceVersion())).toBe(true);
  });
});
