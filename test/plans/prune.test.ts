import { describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../src/plans/checkpoint.js';
import { ConfigMapCheckpointStore, checkpointRef } from '../../src/plans/checkpoint-configmap.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { reconcile, type ReconcileOptions } from '../../src/plans/reconcile.js';
import type { RenderedPlan } from '../../src/render/types.js';
import type { ObjectRef } from '../../src/kube/object.js';
import { apiError, FakeKube } from './fake-client.js';
import { apply, autoReady, cm, desired, INSTANCE, NS, obj, plan, step, testHooks } from './fixtures.js';

function setup(store = new MemoryCheckpointStore()) {
  const kube = new FakeKube();
  autoReady(kube);
  const events: EngineEvent[] = [];
  const run = (plans: Record<string, RenderedPlan>, over: Partial<ReconcileOptions> = {}) =>
    reconcile({
      client: kube, store, hooks: testHooks, instance: INSTANCE, framework: 'redis',
      desired: desired({ plans: Object.keys(plans) }),
      render: async (name) => plans[name]!,
      onEvent: (e) => events.push(e),
      ...over,
    });
  return { kube, store, events, run };
}

const deployAB = plan('deploy', [{ name: 'p', steps: [step('s', [apply(cm('a')), apply(cm('b'))])] }]);
const updateA = plan('update', [{ name: 'p', steps: [step('s', [apply(cm('a'))])] }]);
const has = (kube: FakeKube, name: string) => kube.objects.has(`v1/ConfigMap/shop/${name}`);

describe('pruning after a plan completes', () => {
  it('GIVEN a template was removed WHEN the update completes THEN the object it rendered is deleted and leaves the inventory', async () => {
    const { kube, store, run, events } = setup();
    await run({ deploy: deployAB, update: updateA });
    const result = await run({ deploy: deployAB, update: updateA }, { desired: desired({ plans: ['deploy', 'update'], values: { REPLICAS: 4 } }) });
    expect(result.kind === 'ran' && result.pruned?.deleted).toEqual(['ConfigMap shop/b']);
    expect(has(kube, 'b')).toBe(false);
    expect(has(kube, 'a')).toBe(true);
    expect((await store.load(INSTANCE))?.checkpoint.inventory.map((e) => e.name)).toEqual(['a']);
    expect(events.some((e) => e.type === 'prune' && e.result === 'deleted')).toBe(true);
  });

  it('skips an object whose labels say another instance owns it', async () => {
    const { kube, run } = setup();
    await run({ deploy: deployAB, update: updateA });
    const b = kube.objects.get('v1/ConfigMap/shop/b')!;
    b.metadata.labels = { 'app.kubernetes.io/instance': 'someone-else' };
    const result = await run({ deploy: deployAB, update: updateA }, { desired: desired({ plans: ['deploy', 'update'], values: { REPLICAS: 4 } }) });
    expect(result.kind === 'ran' && result.pruned?.skipped).toEqual(['ConfigMap shop/b']);
    expect(has(kube, 'b')).toBe(true);
  });

  it('keeps an object whose delete failed in the inventory for the next attempt', async () => {
    const { kube, store, run } = setup();
    await run({ deploy: deployAB, update: updateA });
    kube.fault = (verb, ref) => (verb === 'delete' && ref?.name === 'b' ? apiError(500, 'InternalError', 'etcd unavailable') : undefined);
    const result = await run({ deploy: deployAB, update: updateA }, { desired: desired({ plans: ['deploy', 'update'], values: { REPLICAS: 4 } }) });
    expect(result.kind === 'ran' && result.pruned?.failed.map((f) => f.object)).toEqual(['ConfigMap shop/b']);
    expect((await store.load(INSTANCE))?.checkpoint.inventory.map((e) => e.name).sort()).toEqual(['a', 'b']);
  });

  it('never prunes objects of another plan family (a backup Job survives deploy)', async () => {
    const { kube, run } = setup();
    const backup = plan('backup', [{ name: 'p', steps: [step('s', [apply(cm('backup-job'))])] }]);
    const plans = { deploy: deployAB, backup };
    await run(plans);
    await run(plans, { desired: desired({ plans: ['deploy', 'backup'], request: { id: 'r1', plan: 'backup', args: {} } }) });
    await run(plans, { desired: desired({ plans: ['deploy', 'backup'], values: { REPLICAS: 9 } }) });
    expect(has(kube, 'backup-job')).toBe(true);
  });
});

describe('pruning across an apiVersion change', () => {
  const hpa = (apiVersion: string) => obj(apiVersion, 'HorizontalPodAutoscaler', 'h');
  const deployOld = plan('deploy', [{ name: 'p', steps: [step('s', [apply(cm('a')), apply(hpa('autoscaling/v2beta2'))])] }]);
  const upgradeNew = plan('upgrade', [{ name: 'p', steps: [step('s', [apply(cm('a')), apply(hpa('autoscaling/v2'))])] }]);
  const plans = { deploy: deployOld, upgrade: upgradeNew };

  it('GIVEN an HPA applied as autoscaling/v2beta2 WHEN the upgrade renders it as autoscaling/v2 THEN nothing is deleted and the inventory keeps the new version', async () => {
    const { kube, store, run } = setup();
    await run(plans);
    const result = await run(plans, { desired: desired({ plans: ['deploy', 'upgrade'], frameworkVersion: '1.1.0' }) });
    expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
    expect(result.kind === 'ran' && result.pruned?.deleted).toEqual([]);
    expect(kube.calls.filter((c) => c.verb === 'delete')).toEqual([]);
    const inventory = (await store.load(INSTANCE))?.checkpoint.inventory;
    expect(inventory?.map((e) => `${e.apiVersion} ${e.kind} ${e.name} ${e.plan}`).sort()).toEqual(['autoscaling/v2 HorizontalPodAutoscaler h upgrade', 'v1 ConfigMap a upgrade']);
  });

  it('GIVEN the upgrade no longer renders the HPA THEN it is deleted under the version it was applied with', async () => {
    const { kube, run } = setup();
    await run(plans);
    const withoutHpa = plan('upgrade', [{ name: 'p', steps: [step('s', [apply(cm('a'))])] }]);
    const result = await run({ deploy: deployOld, upgrade: withoutHpa }, { desired: desired({ plans: ['deploy', 'upgrade'], frameworkVersion: '1.1.0' }) });
    expect(result.kind === 'ran' && result.pruned?.deleted).toEqual(['HorizontalPodAutoscaler shop/h']);
    expect(kube.calls.filter((c) => c.verb === 'delete').map((c) => c.key)).toEqual(['autoscaling/v2beta2/HorizontalPodAutoscaler/shop/h']);
  });
});

describe('removing an instance', () => {
  it('runs cleanup, deletes everything in the inventory and removes the checkpoint', async () => {
    const { kube, store, run } = setup();
    const cleanup = plan('cleanup', [{ name: 'p', steps: [step('s', [apply(cm('goodbye'))])] }]);
    await run({ deploy: deployAB, cleanup });
    const result = await run({ deploy: deployAB, cleanup }, { desired: desired({ plans: ['deploy', 'cleanup'], removed: true }) });
    expect(result.kind).toBe('removed');
    expect(result.kind === 'removed' && result.cleanup?.outcome).toBe('complete');
    expect(['a', 'b', 'goodbye'].map((n) => has(kube, n))).toEqual([false, false, false]);
    expect(await store.load(INSTANCE)).toBeUndefined();
  });

  it('GIVEN an older checkpoint holding one object twice (two apiVersions) WHEN the instance is removed THEN it is deleted once', async () => {
    const { kube, store, run } = setup();
    const deployHpa = plan('deploy', [{ name: 'p', steps: [step('s', [apply(obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'h'))])] }]);
    await run({ deploy: deployHpa });
    const stored = (await store.load(INSTANCE))!;
    const entry = stored.checkpoint.inventory[0]!;
    await store.save({ ...stored.checkpoint, inventory: [...stored.checkpoint.inventory, { ...entry, apiVersion: 'autoscaling/v2beta2' }] }, stored.version);
    const deletes: string[] = [];
    const del = kube.delete.bind(kube);
    kube.delete = async (ref: ObjectRef) => { deletes.push(`${ref.apiVersion} ${ref.name}`); return del(ref); };
    const result = await run({ deploy: deployHpa }, { desired: desired({ plans: ['deploy'], removed: true }) });
    expect(result.kind === 'removed' && result.report.deleted).toEqual(['HorizontalPodAutoscaler shop/h']);
    expect(deletes).toEqual(['autoscaling/v2 h']);
  });
});

describe('the checkpoint', () => {
  it('is kept in a ConfigMap in the instance namespace and never holds sensitive values in clear', async () => {
    const kube = new FakeKube();
    autoReady(kube, 5, (o) => o.metadata.name === checkpointRef(INSTANCE).name);
    const store = new ConfigMapCheckpointStore(kube);
    await reconcile({
      client: kube, store, hooks: testHooks, instance: INSTANCE, framework: 'redis',
      desired: desired({ values: { PASSWORD: 'hunter2' }, params: [{ name: 'PASSWORD', sensitive: true }] }),
      render: async () => deployAB,
    });
    const stored = await kube.get(checkpointRef(INSTANCE));
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    const loaded = await store.load(INSTANCE);
    expect(loaded?.checkpoint.applied?.values['PASSWORD']).toMatch(/^sha256:/);
    expect(loaded?.checkpoint.active?.state.status).toBe('COMPLETE');
  });

  it('refuses a write from a process holding a stale version', async () => {
    const kube = new FakeKube();
    const store = new ConfigMapCheckpointStore(kube);
    kube.objects.set('v1/Namespace/shop', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const cp = { format: 1 as const, instance: INSTANCE, framework: 'redis', history: [], inventory: [], handledRequests: [] };
    const v1 = await store.save(cp, undefined);
    await store.save({ ...cp, framework: 'x' }, v1);
    await expect(store.save({ ...cp, framework: 'y' }, v1)).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    await expect(store.save(cp, undefined)).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
  });

  it('names the ConfigMap and the problem when the checkpoint is unreadable', async () => {
    const kube = new FakeKube();
    kube.objects.set('v1/ConfigMap/shop/baton-checkpoint-cache', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'baton-checkpoint-cache', namespace: 'shop' }, data: { 'checkpoint.json': '{nope' } });
    await expect(new ConfigMapCheckpointStore(kube).load(INSTANCE)).rejects.toThrow(/ConfigMap shop\/baton-checkpoint-cache.*invalid JSON/);
  });
});

describe('refusals', () => {
  it('records a refused change in the checkpoint and applies nothing', async () => {
    const { kube, store, run, events } = setup();
    await run({ deploy: deployAB });
    const applies = kube.count('apply');
    const result = await run({ deploy: deployAB }, { desired: desired({ plans: ['deploy'], frameworkVersion: '0.9.0' }) });
    expect(result.kind).toBe('refused');
    expect(kube.count('apply')).toBe(applies);
    expect((await store.load(INSTANCE))?.checkpoint.refusal?.code).toBe('VERSION_DOWNGRADE');
    expect(events.some((e) => e.type === 'refused')).toBe(true);
  });
});

describe('pruning with the lifecycle render', () => {
  it('keeps the objects a non-lifecycle plan just applied even when the lifecycle plans do not render them', async () => {
    const { kube, run } = setup();
    const backup = plan('backup', [{ name: 'p', steps: [step('s', [apply(cm('backup-job'))])] }]);
    const plans = { deploy: deployAB, backup };
    const lifecycle = async () => [cm('a'), cm('b')].map((o) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name!, namespace: NS }));
    await run(plans, { renderedObjects: lifecycle });
    const result = await run(plans, { renderedObjects: lifecycle, desired: desired({ plans: ['deploy', 'backup'], request: { id: 'r1', plan: 'backup', args: {} } }) });
    expect(result.kind === 'ran' && result.pruned?.deleted).toEqual([]);
    expect(has(kube, 'backup-job')).toBe(true);
  });
});
