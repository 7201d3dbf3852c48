/** Contract: deletion with finalizers, garbage collection (Background, Foreground, Orphan), namespace deletion. */
import { describe, expect, it } from 'vitest';
import type { StoreWatchEvent } from '../../../src/cluster/store/index.js';
import { apiError, configMap, deployment, newStore, pod, types, type Loose } from './fixtures.js';

function names(list: { metadata: { name?: string } }[]): string[] {
  return list.map((o) => o.metadata.name ?? '');
}

/** A Deployment owning a ReplicaSet owning two Pods. */
function family() {
  const store = newStore();
  const t = types(store);
  const d = store.create(t.deploy, 'default', deployment('web'));
  const rsBody: Loose = structuredClone(deployment('web-1'));
  rsBody.kind = 'ReplicaSet';
  rsBody.spec.selector.matchLabels = { app: 'web-1' };
  rsBody.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }];
  const rs = store.create(t.rs, 'default', rsBody);
  store.create(t.pod, 'default', pod('web-1-a', { app: 'web-1' }, rs));
  store.create(t.pod, 'default', pod('web-1-b', { app: 'web-1' }, rs));
  store.create(t.pod, 'default', pod('unowned'));
  return { store, t };
}

describe('finalizers', () => {
  it('GIVEN an object with a finalizer WHEN deleted THEN it lingers with a deletionTimestamp until an update removes the finalizer', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const result = store.delete(t.cm, 'default', 'held');
    expect(result.kind).toBe('pending');
    const lingering = store.get(t.cm, 'default', 'held');
    expect(lingering.metadata.deletionTimestamp).toBeDefined();
    const err = apiError(() => store.update(t.cm, 'default', 'held', { ...lingering, metadata: { ...lingering.metadata, finalizers: ['example.com/hold', 'new'] } }));
    expect(err.status.details?.causes?.[0]?.message).toContain('no new finalizers can be added');
    store.update(t.cm, 'default', 'held', { ...lingering, metadata: { ...lingering.metadata, finalizers: [] } });
    expect(apiError(() => store.get(t.cm, 'default', 'held')).httpCode).toBe(404);
  });

  it('delete preconditions on uid and resourceVersion are checked', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('a'));
    expect(apiError(() => store.delete(t.cm, 'default', 'a', { preconditions: { uid: 'nope' } })).status.message).toContain('Precondition failed: UID in precondition: nope');
    expect(apiError(() => store.delete(t.cm, 'default', 'a', { preconditions: { resourceVersion: '1' } })).httpCode).toBe(409);
    expect(apiError(() => store.delete(t.cm, 'default', 'missing')).status.message).toBe('configmaps "missing" not found');
  });
});

describe('garbage collection through ownerReferences', () => {
  it.each([
    ['Background deletes the owner at once, then its dependents, transitively', 'Background', [], []],
    ['Foreground deletes dependents first, then the owner', 'Foreground', [], []],
    ['Orphan keeps dependents and strips their ownerReferences', 'Orphan', ['web-1'], ['web-1-a', 'web-1-b']],
  ] as const)('%s', (_name, policy, replicaSets, ownedPods) => {
    const { store, t } = family();
    store.delete(t.deploy, 'default', 'web', { propagationPolicy: policy });
    expect(apiError(() => store.get(t.deploy, 'default', 'web')).httpCode).toBe(404);
    const rsLeft = store.list(t.rs, 'default').items;
    expect(names(rsLeft)).toEqual(replicaSets);
    expect(rsLeft.every((rs) => rs.metadata.ownerReferences === undefined)).toBe(true);
    expect(names(store.list(t.pod, 'default').items)).toEqual([...ownedPods, 'unowned'].sort());
  });

  it('Foreground: the owner shows the foregroundDeletion finalizer while a dependent is held by its own finalizer', () => {
    const { store, t } = family();
    const p = store.get(t.pod, 'default', 'web-1-a');
    store.update(t.pod, 'default', 'web-1-a', { ...p, metadata: { ...p.metadata, finalizers: ['example.com/hold'] } });
    store.delete(t.deploy, 'default', 'web', { propagationPolicy: 'Foreground' });
    expect(store.get(t.deploy, 'default', 'web').metadata.finalizers).toEqual(['foregroundDeletion']);
    const held = store.get(t.pod, 'default', 'web-1-a');
    store.update(t.pod, 'default', 'web-1-a', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(store.list(t.deploy, 'default').items).toEqual([]);
    expect(store.list(t.rs, 'default').items).toEqual([]);
  });

  it('a dependent with another living owner survives', () => {
    const store = newStore();
    const t = types(store);
    const a = store.create(t.cm, 'default', configMap('owner-a'));
    const b = store.create(t.cm, 'default', configMap('owner-b'));
    const both = pod('shared');
    both.metadata.ownerReferences = [a, b].map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' }));
    store.create(t.pod, 'default', both);
    store.delete(t.cm, 'default', 'owner-a');
    expect(store.get(t.pod, 'default', 'shared').metadata.name).toBe('shared');
    store.delete(t.cm, 'default', 'owner-b');
    expect(store.list(t.pod, 'default').items).toEqual([]);
  });

  // A controller acting on its cached view can create a dependent just after the owner went (the
  // cascade test of kubectl.e2e saw a ReplicaSet's Pod outlive it). The real garbage collector deletes
  // objects whose every owner is absent; so must we, or the dependent lives for ever.
  it('GIVEN a dependent created or updated to point at owners that are all gone THEN it is collected; one living owner keeps it', () => {
    const { store, t } = family();
    const rs = store.get(t.rs, 'default', 'web-1');
    store.delete(t.deploy, 'default', 'web');
    expect(store.list(t.rs, 'default').items).toEqual([]);
    store.create(t.pod, 'default', pod('late', { app: 'web-1' }, rs));
    expect(names(store.list(t.pod, 'default').items)).toEqual(['unowned']);

    const alive = store.create(t.cm, 'default', configMap('alive'));
    const mixed = pod('mixed');
    mixed.metadata.ownerReferences = [rs, alive].map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' }));
    store.create(t.pod, 'default', mixed);
    expect(names(store.list(t.pod, 'default').items)).toEqual(['mixed', 'unowned']);

    const unowned = store.get(t.pod, 'default', 'unowned');
    const refs = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: rs.metadata.uid ?? '' }];
    store.update(t.pod, 'default', 'unowned', { ...unowned, metadata: { ...unowned.metadata, ownerReferences: refs } });
    expect(names(store.list(t.pod, 'default').items)).toEqual(['mixed']);
  });
});

describe('namespace deletion', () => {
  it('GIVEN a namespace with content WHEN deleted THEN it turns Terminating, its content goes, then it goes', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.ns, undefined, { metadata: { name: 'team' } });
    store.create(t.cm, 'team', configMap('a'));
    store.create(t.cm, 'team', { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const events: StoreWatchEvent[] = [];
    store.watch(t.ns, undefined, { resourceVersion: store.resourceVersion(), fieldSelector: 'metadata.name=team' }, (e) => events.push(e));
    const result = store.delete(t.ns, undefined, 'team');
    expect(result.object.status).toEqual({ phase: 'Terminating' });
    expect(names(store.list(t.cm, 'team').items)).toEqual(['held']);
    expect(apiError(() => store.create(t.cm, 'team', configMap('late'))).status).toMatchObject({ code: 403, reason: 'Forbidden', message: expect.stringContaining('because it is being terminated') });
    const held = store.get(t.cm, 'team', 'held');
    store.update(t.cm, 'team', 'held', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(apiError(() => store.get(t.ns, undefined, 'team')).status.message).toBe('namespaces "team" not found');
    expect(events.map((e) => `${e.type} ${(e.object as Loose).status?.phase}`)).toEqual(['MODIFIED Terminating', 'DELETED Terminating']);
  });
});

describe('deletecollection', () => {
  it('deletes what the selector matches and nothing else', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('a', {}, { tier: 'x' }));
    store.create(t.cm, 'default', configMap('b', {}, { tier: 'x' }));
    store.create(t.cm, 'default', configMap('c'));
    expect(names(store.deleteCollection(t.cm, 'default', { labelSelector: 'tier=x' }))).toEqual(['a', 'b']);
    expect(names(store.list(t.cm, 'default').items)).toEqual(['c', 'kube-root-ca.crt']);
  });
});
