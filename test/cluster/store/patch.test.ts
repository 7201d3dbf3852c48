/* eslint-disable @typescript-eslint/no-unsafe-return -- tests read nested manifest fields through `Loose` */
/** Contract: JSON merge patch, JSON patch (with test), strategic merge patch as kubectl sends it. */
import { describe, expect, it } from 'vitest';
import { apiError, configMap, deployment, newStore, types, type Loose } from './fixtures.js';

function withDeployment() {
  const store = newStore();
  const t = types(store);
  store.create(t.deploy, 'default', {
    ...deployment('web'),
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'main', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }, { containerPort: 443 }] },
            { name: 'sidecar', image: 'envoy:1' },
          ],
        },
      },
    },
  });
  const patch = (body: unknown): Loose => (store.patch(t.deploy, 'default', 'web', 'strategic', body, { fieldManager: 'kubectl' }).object as Loose).spec.template.spec;
  return { store, t, patch };
}

describe('JSON merge patch (RFC 7386)', () => {
  it.each([
    ['adds and replaces keys', { data: { b: '2', a: 'x' } }, { a: 'x', b: '2' }],
    ['null deletes a key', { data: { a: null } }, {}],
  ])('%s', (_name, patch, data) => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('c', { a: '1' }));
    expect(store.patch(t.cm, 'default', 'c', 'merge', patch).object.data).toEqual(data);
  });

  it('labels are merged as kubectl label does', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('c', {}, { a: '1' }));
    expect(store.patch(t.cm, 'default', 'c', 'merge', { metadata: { labels: { b: '2' } } }).object.metadata.labels).toEqual({ a: '1', b: '2' });
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('applies add, replace, remove, copy and move in order', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('c', { a: '1', b: '2' }));
    const ops = [
      { op: 'test', path: '/data/a', value: '1' },
      { op: 'add', path: '/data/c', value: '3' },
      { op: 'replace', path: '/data/a', value: 'one' },
      { op: 'remove', path: '/data/b' },
      { op: 'copy', from: '/data/c', path: '/data/d' },
      { op: 'move', from: '/data/c', path: '/data/e' },
    ];
    expect(store.patch(t.cm, 'default', 'c', 'json', ops).object.data).toEqual({ a: 'one', d: '3', e: '3' });
  });

  it('a failing test operation rejects the whole patch with 422 and changes nothing', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('c', { a: '1' }));
    const err = apiError(() => store.patch(t.cm, 'default', 'c', 'json', [{ op: 'replace', path: '/data/a', value: '2' }, { op: 'test', path: '/data/a', value: '1' }]));
    expect(err.status).toMatchObject({ code: 422, message: 'testing value /data/a failed: test failed' });
    expect(store.get(t.cm, 'default', 'c').data).toEqual({ a: '1' });
  });

  it('a stale resourceVersion test through a patch is a Conflict', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', configMap('c'));
    expect(apiError(() => store.patch(t.cm, 'default', 'c', 'merge', { metadata: { resourceVersion: '1' } })).httpCode).toBe(409);
  });
});

describe('strategic merge patch', () => {
  it.each([
    ['a container is merged by name, others untouched', { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.26' }] } } }, (s: Loose) => [s.containers.map((c: Loose) => `${c.name}=${c.image}`), s.containers[0].env.length]],
    ['a new env var is appended by name', { template: { spec: { containers: [{ name: 'main', env: [{ name: 'C', value: '3' }] }] } } }, (s: Loose) => s.containers[0].env.map((e: Loose) => e.name)],
    ['an env var is changed in place', { template: { spec: { containers: [{ name: 'main', env: [{ name: 'A', value: 'changed' }] }] } } }, (s: Loose) => s.containers[0].env.map((e: Loose) => `${e.name}=${e.value}`)],
    ['$patch: delete removes one item by key', { template: { spec: { containers: [{ name: 'main', env: [{ name: 'A', $patch: 'delete' }] }] } } }, (s: Loose) => s.containers[0].env.map((e: Loose) => e.name)],
    ['ports merge by containerPort', { template: { spec: { containers: [{ name: 'main', ports: [{ containerPort: 443, name: 'https' }] }] } } }, (s: Loose) => s.containers[0].ports.map((p: Loose) => `${p.containerPort}:${p.name ?? ''}`)],
    ['$setElementOrder orders the merged list', { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'main' }], containers: [{ name: 'main', image: 'nginx:2' }] } } }, (s: Loose) => s.containers.map((c: Loose) => c.name)],
    ['$patch: replace on a list item replaces the list', { template: { spec: { containers: [{ name: 'only', image: 'x:1' }, { $patch: 'replace' }] } } }, (s: Loose) => s.containers.map((c: Loose) => c.name)],
    ['$retainKeys drops the keys not listed', { template: { spec: { securityContext: { $retainKeys: ['runAsUser'], runAsUser: 1000 } } } }, (s: Loose) => s.securityContext],
  ])('%s', (_name, specPatch, view) => {
    const { patch } = withDeployment();
    expect(view(patch({ spec: specPatch }))).toMatchSnapshot();
  });

  it('the directive $deleteFromPrimitiveList removes values from a primitive list', () => {
    const { patch } = withDeployment();
    patch({ spec: { template: { spec: { containers: [{ name: 'main', args: ['a', 'b', 'c'] }] } } } });
    const spec = patch({ spec: { template: { spec: { containers: [{ name: 'main', '$deleteFromPrimitiveList/args': ['b'] }] } } } });
    expect(spec.containers[0].args).toEqual(['a', 'c']);
  });

  it('finalizers merge as a set', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.cm, 'default', { ...configMap('c'), metadata: { name: 'c', finalizers: ['a'] } });
    expect(store.patch(t.cm, 'default', 'c', 'strategic', { metadata: { finalizers: ['b', 'a'] } }).object.metadata.finalizers).toEqual(['a', 'b']);
  });

  it('is refused for custom resources, as on a real server (415)', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.crd, undefined, {
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    const w = store.registry.lookup('example.com', 'v1', 'widgets')!;
    store.create(w, 'default', { metadata: { name: 'x' } });
    expect(apiError(() => store.patch(w, 'default', 'x', 'strategic', { spec: {} })).httpCode).toBe(415);
  });
});
