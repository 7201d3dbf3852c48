/**
 * Drift detection and repair against the simulated cluster: objects deleted, scaled and edited out
 * of band with kubectl, fields the framework does not render, fights with another field manager,
 * and the faults of issue #12 (a kind that is no longer served, a deleted namespace, API errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { DEFAULT_RETRY } from '../../src/plans/retry.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { DriftKeeper, desiredSetOf, repair, sweep, type DriftedObject, type KeeperInstance } from '../../src/drift/index.js';
import { DRIFT_SWEEP_SLICE } from '../../src/drift/keeper.js';
import { SWEEP_RENDERS } from '../../src/drift/sweep.js';
import { deploy, driftOf, driftWorld, sweepAll, sweepInstance, until, webInstance, type DriftWorld, type TestInstance } from './world.js';

let world: DriftWorld;
beforeAll(async () => {
  world = await driftWorld();
});
afterAll(async () => {
  await world.stop();
});

let seq = 0;
async function deployed(shape: Parameters<typeof webInstance>[2] = {}): Promise<TestInstance> {
  seq++;
  const i = webInstance(`drift-${seq}`, `web${seq}`, shape);
  const result = await deploy(world, i);
  expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
  return i;
}

const kubectl = async (...args: string[]): Promise<void> => {
  const r = await world.cluster.kubectl(args);
  expect(r.code, r.stderr).toBe(0);
};

const summary = (objects: readonly DriftedObject[]): string[] => objects.map((o) => `${o.object} ${o.reason.kind}${o.reason.kind === 'changed' ? ` ${o.reason.fields.join(',')} by ${o.reason.managers.join(',')}` : ''}`);

async function repairOf(i: TestInstance, drifted: readonly DriftedObject[], events: EngineEvent[] = [], fight?: Parameters<typeof repair>[0]['fight']): Promise<Awaited<ReturnType<typeof repair>>> {
  return repair({
    client: world.client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(world.client), instance: i.key, drifted,
    desired: await desiredSetOf({ desired: i.desired, render: async () => i.plan }), frameworkVersion: '1.0.0', onEvent: (e) => events.push(e), ...(fight ? { fight } : {}),
  });
}

describe('drift detection', () => {
  it('GIVEN an instance as Git says WHEN swept THEN nothing drifted and its objects are Healthy', async () => {
    const i = await deployed();
    await until(async () => driftOf(await sweepAll(world, [i]), i).health.status === 'Healthy', 'the deployment to be available');
    const d = driftOf(await sweepAll(world, [i]), i);
    expect(d).toMatchObject({ objects: [], errors: [], health: { status: 'Healthy', objects: [], checked: 4 } });
    expect(d.notChecked).toBeUndefined();
  });

  it('GIVEN a deleted PodDisruptionBudget and Service WHEN swept THEN both are missing; WHEN repaired THEN both are re-created, the repair is its own run, and the next sweep is clean', async () => {
    const i = await deployed();
    await kubectl('-n', i.key.namespace, 'delete', 'pdb', i.key.name);
    await kubectl('-n', i.key.namespace, 'delete', 'service', i.key.name);
    const d = driftOf(await sweepAll(world, [i]), i);
    expect(summary(d.objects)).toEqual([`PodDisruptionBudget ${i.key.namespace}/${i.key.name} missing`, `Service ${i.key.namespace}/${i.key.name} missing`]);
    expect(d.health.objects.map((o) => `${o.object}: ${o.status}`)).toEqual(expect.arrayContaining([`Service ${i.key.namespace}/${i.key.name}: Missing`]));

    const events: EngineEvent[] = [];
    const result = await repairOf(i, d.objects, events);
    expect(result.kind).toBe('complete');
    expect(await world.client.get({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: i.key.namespace, name: i.key.name })).toBeDefined();
    expect(await world.client.get({ apiVersion: 'v1', kind: 'Service', namespace: i.key.namespace, name: i.key.name })).toBeDefined();
    expect(events.filter((e) => e.type.startsWith('plan-')).map((e) => `${e.type}:${'plan' in e ? e.plan : ''}`)).toEqual(['plan-started:repair', 'plan-complete:repair']);
    const cp = (await new ConfigMapCheckpointStore(world.client).load(i.key))?.checkpoint;
    expect(cp?.repair?.last).toMatchObject({ plan: 'repair', state: { status: 'COMPLETE' }, phases: [{ name: 'repair', steps: [{ name: 'deploy/main/app', state: { status: 'COMPLETE' } }] }] });
    expect(cp?.repair?.last?.reason).toContain('Service');
    // The repair is not the active run: the desired state's own run stays what it was.
    expect(cp?.active?.plan).toBe('deploy');
    expect(driftOf(await sweepAll(world, [i]), i).objects).toEqual([]);
  });

  it('GIVEN kubectl scale WHEN swept THEN .spec.replicas drifted, owned by kubectl; WHEN repaired THEN Git wins again', async () => {
    const i = await deployed();
    await kubectl('-n', i.key.namespace, 'scale', 'deploy', i.key.name, '--replicas=5');
    const d = driftOf(await sweepAll(world, [i]), i);
    expect(summary(d.objects)).toEqual([`Deployment ${i.key.namespace}/${i.key.name} changed .spec.replicas by kubectl`]);
    expect((await repairOf(i, d.objects)).kind).toBe('complete');
    expect((await world.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: i.key.namespace, name: i.key.name }))?.['spec']).toMatchObject({ replicas: 2 });
  });

  it('GIVEN a label and a ConfigMap value edited by a person WHEN swept THEN both count as changed fields', async () => {
    const i = await deployed();
    await kubectl('-n', i.key.namespace, 'label', 'deploy', i.key.name, 'app.kubernetes.io/name-');
    await kubectl('-n', i.key.namespace, 'patch', 'configmap', `${i.key.name}-config`, '--type=merge', '-p', '{"data":{"greeting":"bye"}}');
    const d = driftOf(await sweepAll(world, [i]), i);
    expect(d.objects.map((o) => `${o.object} ${o.reason.kind === 'changed' ? o.reason.fields.join(',') : o.reason.kind}`)).toEqual([
      `ConfigMap ${i.key.namespace}/${i.key.name}-config .data.greeting`,
      `Deployment ${i.key.namespace}/${i.key.name} .metadata.labels.app.kubernetes.io/name`,
    ]);
  });

  it('GIVEN a template without replicas and an autoscaler scaling the Deployment WHEN swept THEN nothing drifted (the framework does not render that field)', async () => {
    const i = await deployed({ replicas: undefined });
    await kubectl('-n', i.key.namespace, 'scale', 'deploy', i.key.name, '--replicas=6');
    // Other managers' fields the framework does not render: an annotation a controller adds.
    await kubectl('-n', i.key.namespace, 'annotate', 'service', i.key.name, 'example.com/owner=team-a');
    expect(driftOf(await sweepAll(world, [i]), i).objects).toEqual([]);
  });

  it('GIVEN an object annotated baton.dev/conflicts: Report WHEN another manager changes its field THEN it is reported, not repaired; baton.dev/drift: Ignore is not looked at', async () => {
    const i = await deployed({ annotations: { 'baton.dev/conflicts': 'Report' }, extra: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'scratch', annotations: { 'baton.dev/drift': 'Ignore' } }, data: { a: '1' } }] });
    await kubectl('-n', i.key.namespace, 'scale', 'deploy', i.key.name, '--replicas=3');
    await kubectl('-n', i.key.namespace, 'delete', 'configmap', 'scratch');
    const d = driftOf(await sweepAll(world, [i]), i);
    expect(d.objects).toEqual([expect.objectContaining({ object: `Deployment ${i.key.namespace}/${i.key.name}`, action: 'report' })]);
    expect((await repairOf(i, d.objects)).kind).toBe('skipped');
  });

  it('GIVEN another controller that scales the Deployment back after every repair WHEN the fight goes on THEN repairs back off and the fight names that manager', async () => {
    const i = await deployed();
    const fight = { repairs: 2, windowMs: 3_600_000, backoffMs: 600_000, maxBackoffMs: 3_600_000 };
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      await kubectl('-n', i.key.namespace, 'patch', 'deploy', i.key.name, '--type=merge', '-p', JSON.stringify({ spec: { replicas: 4 + round } }), '--field-manager=hpa-controller');
      const d = driftOf(await sweepAll(world, [i]), i);
      const r = await repairOf(i, d.objects, [], fight);
      outcomes.push(r.kind);
      if (round === 2) expect(r.heldBack.map((h) => h.fight)).toEqual([expect.objectContaining({ object: `Deployment ${i.key.namespace}/${i.key.name}`, managers: ['hpa-controller'], fields: ['.spec.replicas'], repairs: 3 })]);
    }
    expect(outcomes).toEqual(['complete', 'complete', 'skipped']);
    // Held back: the other controller's value stays, and the fight is on record for status and the next sweep.
    expect((await world.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: `drift-${seq}`, name: `web${seq}` }))?.['spec']).toMatchObject({ replicas: 6 });
    const cp = (await new ConfigMapCheckpointStore(world.client).load(i.key))?.checkpoint;
    expect(cp?.repair?.fights[0]?.backoffUntil).toBeDefined();
  });

  it('sweeps many instances with a few lists per kind and one dry-run per suspect, never one request per object', async () => {
    const many = [await deployed(), await deployed(), await deployed(), await deployed()];
    await kubectl('-n', many[1]!.key.namespace, 'scale', 'deploy', many[1]!.key.name, '--replicas=3');
    const report = await sweepAll(world, many);
    // checkpoints (ConfigMaps) + ConfigMap, Deployment, Service, PodDisruptionBudget: cluster-wide lists (4 namespaces).
    expect(report.stats).toMatchObject({ lists: 5, dryRuns: 1, gets: 0, objects: 16, candidates: 1 });
    expect(report.stats.requests).toBe(6);
    expect(report.instances.map((d) => d.objects.length)).toEqual([0, 1, 0, 0]);
  });

  it('GIVEN many deployed instances WHEN three of them are swept THEN the cluster-wide lists return and the sweep keeps only their checkpoints and objects (its memory follows the instances swept, issue #20)', async () => {
    const many = [await deployed(), await deployed(), await deployed(), await deployed(), await deployed(), await deployed()];
    const swept = many.slice(0, 3);
    await kubectl('-n', swept[1]!.key.namespace, 'scale', 'deploy', swept[1]!.key.name, '--replicas=4');
    const report = await sweepAll(world, swept);
    // Three namespaces: cluster-wide lists, narrowed by the instance label to the swept instances (they
    // returned every deployed instance's objects before, 5 each with its checkpoint): their checkpoints
    // and their ConfigMap, Deployment, Service and PodDisruptionBudget, all of them kept.
    expect(report.stats.listed).toBe(swept.length * 5);
    expect(report.stats.kept).toBe(swept.length * 5);
    expect(report.stats.lists).toBe(5);
    // Still a full check of the swept instances.
    expect(report.instances.map((d) => summary(d.objects))).toEqual([[], [`Deployment ${swept[1]!.key.namespace}/${swept[1]!.key.name} changed .spec.replicas by kubectl`], []]);
  });
});

describe('drift checks of many instances at once (issue #20)', () => {
  it('GIVEN more instances due than a slice WHEN the keeper checks them THEN it sweeps them in slices, one after another, and reports every one', async () => {
    const many = [await deployed(), await deployed(), await deployed(), await deployed(), await deployed()];
    await kubectl('-n', many[3]!.key.namespace, 'scale', 'deploy', many[3]!.key.name, '--replicas=4');
    const loading: number[] = [];
    let loaded = 0;
    const keeper = new DriftKeeper({ client: world.client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(world.client), sliceSize: 2 });
    const instances: KeeperInstance[] = many.map((i) => ({
      key: i.key, contentId: i.key.name, settings: { intervalMs: 60_000, policy: 'repair', retry: DEFAULT_RETRY },
      load: async () => { loading.push(loaded++); return { desired: i.desired, render: async () => i.plan }; },
    }));
    const report = await keeper.check(instances);
    expect(report.stats.sweeps).toBe(3);
    expect(report.stats.kept).toBe(many.length * 5);
    expect(report.instances.map((d) => `${d.instance.namespace}/${d.instance.name}`)).toEqual(many.map((i) => `${i.key.namespace}/${i.key.name}`));
    expect(report.instances.map((d) => summary(d.objects))).toEqual([[], [], [], [`Deployment ${many[3]!.key.namespace}/${many[3]!.key.name} changed .spec.replicas by kubectl`], []]);
    expect(loading).toHaveLength(many.length);
  });
});

describe('what a sweep holds and lists at once (issue #20)', () => {
  let four: TestInstance[] = [];
  const fourDeployed = async (): Promise<TestInstance[]> => (four = four.length > 0 ? four : [await deployed(), await deployed(), await deployed(), await deployed()]);

  it('GIVEN deployed instances WHEN swept THEN the lists of managed objects return no checkpoint: checkpoints are listed once, by their own label', async () => {
    const many = await fourDeployed();
    const lists: { selector: string; checkpoints: number }[] = [];
    const client = new Proxy(world.client, {
      get: (target, prop) => {
        if (prop === 'list') {
          return async (...args: Parameters<typeof world.client.list>) => {
            const page = await target.list(...args);
            lists.push({ selector: args[3]?.labelSelector ?? '', checkpoints: page.items.filter((o) => o.metadata.labels?.['baton.dev/checkpoint'] === 'true').length });
            return page;
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const report = await sweep({ client, hooks: defaultHooks(), instances: many.map((i) => sweepInstance(i)) });
    expect(report.instances.map((d) => d.errors)).toEqual([[], [], [], []]);
    const byCheckpointLabel = lists.filter((l) => l.selector.startsWith('baton.dev/checkpoint=true'));
    // Each swept instance's checkpoint, once (the list names the swept instances).
    expect(byCheckpointLabel.reduce((sum, l) => sum + l.checkpoints, 0)).toBe(many.length);
    // Before: the managed ConfigMap list returned every checkpoint in the cluster a second time.
    const managed = lists.filter((l) => !byCheckpointLabel.includes(l));
    expect(managed.length).toBeGreaterThanOrEqual(4);
    expect(managed.map((l) => l.checkpoints)).toEqual(managed.map(() => 0));
  });

  it('GIVEN more instances than a sweep renders at once WHEN swept THEN at most that many renders are in flight (before: every instance of a slice at once)', async () => {
    const many = await fourDeployed();
    let inFlight = 0;
    let most = 0;
    const instances = many.map((i) => ({
      ...sweepInstance(i),
      desired: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        // Let every other render that may start, start.
        for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
        inFlight--;
        return desiredSetOf({ desired: i.desired, render: async () => i.plan });
      },
    }));
    const report = await sweep({ client: world.client, hooks: defaultHooks(), instances, renderConcurrency: 2 });
    expect(report.instances).toHaveLength(4);
    expect(most).toBe(2);
    expect(SWEEP_RENDERS).toBeLessThan(DRIFT_SWEEP_SLICE);
  });

  it('GIVEN a sweep in slices WHEN the agent stops during the first render THEN no further render, list or slice starts and no instance is reported', async () => {
    const many = await fourDeployed();
    const stop = new AbortController();
    let loads = 0;
    const keeper = new DriftKeeper({ client: world.client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(world.client), sliceSize: 2 });
    const instances: KeeperInstance[] = many.map((i) => ({
      key: i.key, contentId: `${i.key.name}-stop`, settings: { intervalMs: 60_000, policy: 'repair', retry: DEFAULT_RETRY },
      load: async () => { loads++; stop.abort(); return { desired: i.desired, render: async () => i.plan }; },
    }));
    const report = await keeper.check(instances, stop.signal);
    expect(report.stats.sweeps).toBe(1);
    // The first slice's two checkpoints only: no managed object was listed after the stop.
    expect(report.stats.kept).toBe(2);
    expect(report.instances).toEqual([]);
    expect(loads).toBeLessThanOrEqual(2);
  });
});

describe('drift detection: bad input and faults', () => {
  it('GIVEN a custom resource whose CRD was deleted WHEN swept THEN a located error names the kind, other instances are checked, nothing is deleted', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.drift.example.com' },
      spec: { group: 'drift.example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    await world.client.apply(crd, { fieldManager: 'platform-team' });
    await until(async () => (await world.client.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name }))?.['status'] !== undefined, 'the CRD to be established');
    seq++;
    const withGadget = webInstance(`drift-${seq}`, `web${seq}`, { extra: [{ apiVersion: 'drift.example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } }] });
    const deployedGadget = await deploy(world, withGadget);
    expect(deployedGadget.kind === 'ran' && deployedGadget.execution.outcome).toBe('complete');
    const other = await deployed();
    await kubectl('delete', 'crd', crd.metadata.name);
    await kubectl('-n', other.key.namespace, 'delete', 'service', other.key.name);
    await until(async () => (await world.cluster.kubectl(['api-resources', '--api-group=drift.example.com', '-o', 'name'])).stdout.trim() === '', 'the kind to be gone');
    const report = await sweepAll(world, [withGadget, other]);
    const broken = driftOf(report, withGadget);
    expect(broken.errors).toEqual([`Gadget ${withGadget.key.namespace}/g1 (drift.example.com/v1): the cluster no longer serves Gadget (drift.example.com/v1): was its CustomResourceDefinition deleted?`]);
    expect(broken.health.status).toBe('Unknown');
    expect(broken.objects).toEqual([]);
    expect(summary(driftOf(report, other).objects)).toEqual([`Service ${other.key.namespace}/${other.key.name} missing`]);
    // Everything else of the broken instance is still there: a sweep deletes nothing.
    expect(await world.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: withGadget.key.namespace, name: withGadget.key.name })).toBeDefined();
  });

  it('GIVEN the namespace of an instance was deleted WHEN swept THEN that instance reports its checkpoint gone, others are checked', async () => {
    const gone = await deployed();
    const other = await deployed();
    await kubectl('delete', 'namespace', gone.key.namespace, '--wait=true');
    await kubectl('-n', other.key.namespace, 'scale', 'deploy', other.key.name, '--replicas=1');
    const report = await sweepAll(world, [gone, other]);
    expect(driftOf(report, gone)).toMatchObject({ checkpointMissing: true, health: { status: 'Missing' } });
    expect(driftOf(report, gone).errors[0]).toMatch(new RegExp(`^ConfigMap ${gone.key.namespace}/baton-checkpoint-${gone.key.name}: the checkpoint is gone \\(was namespace ${gone.key.namespace} deleted\\?\\)`));
    expect(summary(driftOf(report, other).objects)).toEqual([`Deployment ${other.key.namespace}/${other.key.name} changed .spec.replicas by kubectl`]);
  });

  it('GIVEN the API answers 500 to lists of one kind WHEN swept THEN the objects of that kind get located errors, the rest is checked, nothing is deleted', async () => {
    const withService = await deployed();
    const without = await deployed({ withService: false });
    await kubectl('-n', withService.key.namespace, 'delete', 'configmap', `${withService.key.name}-config`);
    await kubectl('-n', without.key.namespace, 'delete', 'pdb', without.key.name);
    world.faults.setRules([{ verb: 'list', resource: 'services', error: 500 }]);
    try {
      const report = await sweepAll(world, [withService, without]);
      const hit = driftOf(report, withService);
      expect(hit.errors).toHaveLength(1);
      expect(hit.errors[0]).toMatch(new RegExp(`^Service ${withService.key.namespace}/${withService.key.name} \\(v1\\): could not be listed: `));
      expect(summary(hit.objects)).toEqual([`ConfigMap ${withService.key.namespace}/${withService.key.name}-config missing`]);
      expect(hit.health.status).toBe('Unknown');
      expect(summary(driftOf(report, without).objects)).toEqual([`PodDisruptionBudget ${without.key.namespace}/${without.key.name} missing`]);
      expect(driftOf(report, without).errors).toEqual([]);
    } finally {
      world.faults.clear();
    }
  });

  it('GIVEN a desired state that is not applied (its update failed) WHEN swept THEN drift is not measured, health is', async () => {
    const i = await deployed();
    const failing = { ...i, desired: { ...i.desired, values: { NAME: 'changed' } }, plan: { ...i.plan, plan: 'deploy' } };
    world.faults.setRules([{ verb: 'patch', resource: 'deployments', namespace: i.key.namespace, error: 500 }]);
    try {
      // The step retries 500s until its timeout; a timeout of 1s ends it quickly.
      const short = { ...failing, plan: { ...failing.plan, phases: failing.plan.phases.map((p) => ({ ...p, steps: p.steps.map((s) => ({ ...s, timeoutSeconds: 1 })) })) } };
      const result = await deploy(world, short);
      expect(result.kind === 'ran' && result.execution.outcome).toBe('failed');
    } finally {
      world.faults.clear();
    }
    const d = driftOf(await sweep({ client: world.client, hooks: defaultHooks(), instances: [sweepInstance(failing)] }), i);
    expect(d.notChecked).toEqual({ kind: 'not-applied', message: 'the desired state is not applied (deploy failed: STEP_TIMEOUT)' });
    expect(d.health.checked).toBe(4);
  });
});
