/** Contract: CRD lifecycle (serving, conditions, deletion), custom resource validation and pruning, subresources. */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/cluster/store/index.js';
import { apiError, newStore, types, type Loose } from './fixtures.js';

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'integer', minimum: 1 },
        mode: { type: 'string', enum: ['fast', 'safe'] },
        tags: { type: 'array', items: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, replicas: { type: 'integer' } } },
  },
};

function crd(extra: Loose = {}): Loose {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: SCHEMA },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' } },
          additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
      ],
      ...extra,
    },
  };
}

function withCrd(): { store: Store; w: Loose } {
  const store = newStore();
  store.create(types(store).crd, undefined, crd());
  return { store, w: store.registry.lookup('example.com', 'v1', 'widgets') };
}

const widget = (name: string, spec: Loose): Loose => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

describe('CRD lifecycle', () => {
  it('GIVEN a CRD WHEN created THEN its resource is served, discovery listeners hear of it, and it is Established', () => {
    const store = newStore();
    let changes = 0;
    store.registry.onChange(() => changes++);
    store.create(types(store).crd, undefined, crd());
    const w = store.registry.lookup('example.com', 'v1', 'widgets');
    expect(w).toMatchObject({ kind: 'Widget', namespaced: true, shortNames: ['wd'], categories: ['all'], subresources: { status: true, scale: { specReplicasPath: '.spec.size' } }, printerColumns: [{ name: 'Size' }] });
    expect(changes).toBeGreaterThan(0);
    const status = store.get(types(store).crd, undefined, 'widgets.example.com').status as Loose;
    expect(status.conditions.map((c: Loose) => `${c.type}=${c.status}`)).toEqual(['NamesAccepted=True', 'Established=True']);
    expect(status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' });
  });

  it('GIVEN custom resources WHEN the CRD is deleted THEN they are deleted and the resource is no longer served', () => {
    const { store, w } = withCrd();
    store.create(w, 'default', widget('a', { size: 1 }));
    store.delete(types(store).crd, undefined, 'widgets.example.com');
    expect(store.registry.lookup('example.com', 'v1', 'widgets')).toBeUndefined();
    store.create(types(store).crd, undefined, crd());
    expect(store.list(store.registry.lookup('example.com', 'v1', 'widgets')!, 'default').items).toEqual([]);
  });

  it.each([
    ['a name that is not plural.group', (c: Loose) => { c.metadata.name = 'wrong.example.com'; }, 'metadata.name'],
    ['a group without a dot', (c: Loose) => { c.spec.group = 'example'; c.metadata.name = 'widgets.example'; }, 'spec.group'],
    ['no storage version', (c: Loose) => { c.spec.versions[0].storage = false; }, 'spec.versions'],
    ['a bad scope', (c: Loose) => { c.spec.scope = 'Global'; }, 'spec.scope'],
  ])('a CRD with %s is Invalid', (_name, breakIt, field) => {
    const store = newStore();
    const body = crd();
    breakIt(body);
    const err = apiError(() => store.create(types(store).crd, undefined, body));
    expect(err.httpCode).toBe(422);
    expect(err.status.details?.causes?.map((c) => c.field)).toContain(field);
  });
});

describe('custom resource validation', () => {
  it.each([
    ['a wrong type', { size: 'big' }, 'spec.size', 'must be of type integer'],
    ['a missing required field', {}, 'spec.size', 'Required value'],
    ['a value outside the enum', { size: 1, mode: 'slow' }, 'spec.mode', 'Unsupported value: "slow"'],
    ['a value under the minimum', { size: 0 }, 'spec.size', 'should be greater than or equal to 1'],
    ['a wrong item type', { size: 1, tags: [1] }, 'spec.tags[0]', 'must be of type string'],
  ])('%s is 422 Invalid naming the field', (_name, spec, field, text) => {
    const { store, w } = withCrd();
    const err = apiError(() => store.create(w, 'default', widget('x', spec)));
    expect(err.status.message).toMatch(/^Widget\.example\.com "x" is invalid: /);
    expect(err.status.details?.causes).toEqual([expect.objectContaining({ field, message: expect.stringContaining(text) })]);
  });

  it.each([
    ['Ignore prunes silently', 'Ignore' as const, []],
    ['Warn prunes and warns', 'Warn' as const, ['unknown field "spec.unknown"']],
  ])('unknown fields: %s; preserve-unknown-fields keeps its subtree', (_name, fieldValidation, warnings) => {
    const { store, w } = withCrd();
    const seen: string[] = [];
    const created = store.create(w, 'default', widget('x', { size: 1, unknown: true, extra: { any: { thing: 1 } } }), { fieldValidation, onWarning: (m) => seen.push(m) }) as Loose;
    expect(created.spec).toEqual({ size: 1, extra: { any: { thing: 1 } } });
    expect(seen).toEqual(warnings);
  });

  it('unknown fields under Strict are 400 BadRequest', () => {
    const { store, w } = withCrd();
    expect(apiError(() => store.create(w, 'default', widget('x', { size: 1, nope: 1 }), { fieldValidation: 'Strict' })).status).toMatchObject({ code: 400, message: 'strict decoding error: unknown field "spec.nope"' });
  });
});

describe('custom resource subresources', () => {
  it('status is ignored on the main resource and written through /status', () => {
    const { store, w } = withCrd();
    const created = store.create(w, 'default', { ...widget('x', { size: 1 }), status: { ready: true } }) as Loose;
    expect(created.status).toBeUndefined();
    const updated = store.update(w, 'default', 'x', { ...created, status: { ready: true, replicas: 1 } }, { subresource: 'status' }) as Loose;
    expect(updated.status).toEqual({ ready: true, replicas: 1 });
    expect(updated.metadata.generation).toBe(1);
  });

  it('scale reads and writes the paths the CRD declares', () => {
    const { store, w } = withCrd();
    store.create(w, 'default', widget('x', { size: 2 }));
    expect(store.getScale(w, 'default', 'x').spec).toEqual({ replicas: 2 });
    store.updateScale(w, 'default', 'x', { spec: { replicas: 5 } });
    expect((store.get(w, 'default', 'x') as Loose).spec.size).toBe(5);
  });
});

describe('server-side apply of custom resources', () => {
  function listCrd(): { store: Store; w: Loose } {
    const store = newStore();
    const body = crd();
    body.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.members = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, role: { type: 'string' } } },
    };
    store.create(types(store).crd, undefined, body);
    return { store, w: store.registry.lookup('example.com', 'v1', 'widgets') };
  }

  it('GIVEN a list declared x-kubernetes-list-type: map WHEN two managers apply different items THEN both are kept, each owned by its applier', () => {
    const { store, w } = listCrd();
    store.patch(w, 'default', 'x', 'apply', widget('x', { size: 1, members: [{ name: 'a', role: 'leader' }] }), { fieldManager: 'one' });
    const result = store.patch(w, 'default', 'x', 'apply', widget('x', { members: [{ name: 'b', role: 'follower' }] }), { fieldManager: 'two' }).object as Loose;
    expect(result.spec.members).toEqual([{ name: 'a', role: 'leader' }, { name: 'b', role: 'follower' }]);
    const two = result.metadata.managedFields.find((m: Loose) => m.manager === 'two');
    expect(Object.keys(two.fieldsV1['f:spec']['f:members'])).toEqual(['k:{"name":"b"}']);
    const after = store.patch(w, 'default', 'x', 'apply', widget('x', {}), { fieldManager: 'two' }).object as Loose;
    expect(after.spec.members).toEqual([{ name: 'a', role: 'leader' }]);
  });

  it('lists without list-type map stay atomic: a second applier with a different list conflicts', () => {
    const { store, w } = withCrd();
    store.patch(w, 'default', 'x', 'apply', widget('x', { size: 1, tags: ['a'] }), { fieldManager: 'one' });
    const err = apiError(() => store.patch(w, 'default', 'x', 'apply', widget('x', { tags: ['b'] }), { fieldManager: 'two' }));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "one" using example.com/v1: .spec.tags');
  });
});
