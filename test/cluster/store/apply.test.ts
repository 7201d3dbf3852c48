/* eslint-disable @typescript-eslint/no-unsafe-return -- tests read nested manifest fields through `Loose` */
/** Contract: server-side apply (ownership, conflicts, force, field removal) and Update managers. */
import { describe, expect, it } from 'vitest';
import { apiError, configMap, deployment, newStore, types, type Loose } from './fixtures.js';

function setup() {
  const store = newStore();
  const t = types(store);
  const apply = (body: unknown, manager: string, force = false): Loose => store.patch(t.deploy, 'default', 'web', 'apply', body, { fieldManager: manager, force });
  return { store, t, apply };
}

describe('server-side apply', () => {
  it('GIVEN no object WHEN applied THEN it is created (created=true) and the manager owns exactly the applied fields', () => {
    const { apply } = setup();
    const result = apply(deployment('web', { replicas: 2 }), 'baton');
    expect(result.created).toBe(true);
    const entries = result.object.metadata.managedFields;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ manager: 'baton', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    const fields = entries[0].fieldsV1;
    expect(fields['f:spec']['f:replicas']).toEqual({});
    expect(fields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"main"}']).toMatchObject({ '.': {}, 'f:image': {}, 'f:name': {} });
    // Defaulted fields belong to nobody.
    expect(fields['f:spec']['f:revisionHistoryLimit']).toBeUndefined();
  });

  it('re-applying the same configuration is a no-op (same resourceVersion)', () => {
    const { apply } = setup();
    const first = apply(deployment('web'), 'baton').object;
    const again = apply(deployment('web'), 'baton');
    expect(again.created).toBe(false);
    expect(again.object.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });

  it('GIVEN a field owned by another manager WHEN applied with a different value THEN 409 naming the manager and field', () => {
    const { apply } = setup();
    apply(deployment('web', { replicas: 2 }), 'kubectl');
    const err = apiError(() => apply(deployment('web', { replicas: 5 }), 'baton'));
    expect(err.status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas',
      details: { causes: [{ type: 'FieldManagerConflict', message: 'conflict with "kubectl" using apps/v1', field: '.spec.replicas' }] },
    });
  });

  it('applying the same value as another manager shares ownership without conflict', () => {
    const { apply } = setup();
    apply(deployment('web', { replicas: 2 }), 'kubectl');
    const result = apply(deployment('web', { replicas: 2 }), 'baton');
    const owners = result.object.metadata.managedFields.filter((m: Loose) => m.fieldsV1['f:spec']?.['f:replicas']).map((m: Loose) => m.manager);
    expect(owners).toEqual(['kubectl', 'baton']);
  });

  it('force=true takes ownership away from the other manager', () => {
    const { apply } = setup();
    apply(deployment('web', { replicas: 2 }), 'kubectl');
    const result = apply(deployment('web', { replicas: 5 }), 'baton', true);
    expect(result.object.spec.replicas).toBe(5);
    const kubectl = result.object.metadata.managedFields.find((m: Loose) => m.manager === 'kubectl');
    expect(kubectl.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
  });

  it('a field the manager stops applying is removed when no one else owns it', () => {
    const { apply } = setup();
    apply(deployment('web', { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }), 'baton');
    const result = apply(deployment('web', { env: [{ name: 'A', value: '1' }] }), 'baton');
    expect(result.object.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('a field the manager stops applying stays when another manager also owns it', () => {
    const { store, t, apply } = setup();
    apply({ ...deployment('web'), metadata: { name: 'web', labels: { team: 'a' } } }, 'baton');
    store.patch(t.deploy, 'default', 'web', 'merge', { metadata: { labels: { team: 'b' } } }, { fieldManager: 'kubectl-label' });
    const result = apply(deployment('web'), 'baton');
    expect(result.object.metadata.labels).toEqual({ team: 'b' });
  });

  it('an Update manager that changed a field takes it over; the applier then conflicts on it', () => {
    const { store, t, apply } = setup();
    apply(deployment('web', { replicas: 1 }), 'baton');
    store.patch(t.deploy, 'default', 'web', 'merge', { spec: { replicas: 3 } }, { fieldManager: 'kubectl-scale' });
    const live = store.get(t.deploy, 'default', 'web');
    const scaler = live.metadata.managedFields?.find((m) => m.manager === 'kubectl-scale');
    expect(scaler).toMatchObject({ operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    const baton = live.metadata.managedFields?.find((m) => m.manager === 'baton') as Loose;
    expect(baton.fieldsV1['f:spec']['f:replicas']).toBeUndefined();
    expect(apiError(() => apply(deployment('web', { replicas: 1 }), 'baton')).status.message).toContain('conflict with "kubectl-scale"');
  });

  it.each([
    ['without a fieldManager', deployment('web'), undefined, 400, 'fieldManager'],
    ['with a name that differs from the URL', deployment('other'), 'baton', 400, 'does not match the name on the URL'],
  ])('is refused %s', (_name, body, manager, code, text) => {
    const { store, t } = setup();
    const err = apiError(() => store.patch(t.deploy, 'default', 'web', 'apply', body, manager ? { fieldManager: manager } : {}));
    expect(err.httpCode).toBe(code);
    expect(err.status.message).toContain(text);
  });

  it('accepts a YAML body, as kubectl sends application/apply-patch+yaml', () => {
    const store = newStore();
    const t = types(store);
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  when: "2024-01-01"\n';
    expect(store.patch(t.cm, 'default', 'y', 'apply', yaml, { fieldManager: 'm' }).object.data).toEqual({ when: '2024-01-01' });
  });

  it('a status apply touches only status and is recorded with subresource status', () => {
    const { store, t, apply } = setup();
    apply(deployment('web'), 'baton');
    const result = store.patch(t.deploy, 'default', 'web', 'apply', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { readyReplicas: 1 }, spec: { replicas: 9 } }, { fieldManager: 'ctrl', subresource: 'status' });
    expect((result.object as Loose).status).toEqual({ readyReplicas: 1 });
    expect((result.object as Loose).spec.replicas).toBe(1);
    expect(result.object.metadata.managedFields?.find((m) => m.manager === 'ctrl')).toMatchObject({ operation: 'Apply', subresource: 'status' });
  });
});

describe('Update managers', () => {
  it('create records the creator as an Update manager of every field it set', () => {
    const store = newStore();
    const t = types(store);
    const created = store.create(t.cm, 'default', configMap('c', { a: '1' }), { fieldManager: 'kubectl-create' });
    expect(created.metadata.managedFields).toEqual([
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: expect.any(String), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  it('scale through the scale subresource changes spec.replicas and answers a Scale', () => {
    const store = newStore();
    const t = types(store);
    store.create(t.deploy, 'default', deployment('web'));
    const scale = store.patch(t.deploy, 'default', 'web', 'merge', { spec: { replicas: 4 } }, { subresource: 'scale' }).object;
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 }, status: { selector: 'app=web' } });
    expect((store.get(t.deploy, 'default', 'web') as Loose).spec.replicas).toBe(4);
    expect(apiError(() => store.getScale(t.cm, 'default', 'x')).httpCode).toBe(404);
  });
});

describe('apply after a client-side create (kubectl migration)', () => {
  it('GIVEN defaulted fields recorded for the applier WHEN it stops applying them THEN defaulting restores them', () => {
    const store = newStore();
    const t = types(store);
    const created = store.create(t.deploy, 'default', deployment('web'), { fieldManager: 'kubectl' });
    // kubectl turns the client-side manager into an Apply manager of every field it recorded.
    const entries = (created.metadata.managedFields ?? []).map((m) => ({ ...m, operation: 'Apply' as const }));
    store.patch(t.deploy, 'default', 'web', 'json', [{ op: 'replace', path: '/metadata/managedFields', value: entries }]);
    const result = store.patch(t.deploy, 'default', 'web', 'apply', deployment('web', { image: 'nginx:2' }), { fieldManager: 'kubectl' }).object as Loose;
    expect(result.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    expect(result.spec.template.spec.containers[0].image).toBe('nginx:2');
  });
});
