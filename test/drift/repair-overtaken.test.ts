/**
 * A drift repair decided for one applied state and overtaken by a plan of a newer one (issue #20
 * follow-up): the repair's worker runs after the plan and must not take the instance back to the old
 * desired state, nor record a repair in the checkpoint (whose runs go to Git as the audit record).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { DEFAULT_RETRY } from '../../src/plans/retry.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { DriftKeeper, desiredSetOf, repair, type DriftedObject, type KeeperInstance } from '../../src/drift/index.js';
import { deploy, driftOf, driftWorld, sweepAll, webInstance, type DriftWorld, type TestInstance } from './world.js';

let world: DriftWorld;
beforeAll(async () => {
  world = await driftWorld();
});
afterAll(async () => {
  await world.stop();
});

let seq = 0;
async function deployed(): Promise<TestInstance> {
  seq++;
  const i = webInstance(`overtaken-${seq}`, `web${seq}`, { withPdb: false, withService: false });
  const result = await deploy(world, i);
  expect(result.kind === 'ran' && result.execution.outcome).toBe('complete');
  return i;
}

const kubectl = async (...args: string[]): Promise<void> => {
  const r = await world.cluster.kubectl(args);
  expect(r.code, r.stderr).toBe(0);
};

const summary = (objects: readonly DriftedObject[]): string[] => objects.map((o) => `${o.object} ${o.reason.kind}${o.reason.kind === 'changed' ? ` ${o.reason.fields.join(',')} by ${o.reason.managers.join(',')}` : ''}`);

describe('a repair overtaken by a plan (issue #20 follow-up)', () => {
  it('GIVEN a repair decided for one applied state WHEN a plan applies a newer desired state before the repair runs THEN the repair re-applies nothing, records nothing and the next check decides again', async () => {
    const i = await deployed();
    const { namespace, name } = i.key;
    const store = new ConfigMapCheckpointStore(world.client);
    await kubectl('-n', namespace, 'patch', 'configmap', `${name}-config`, '--type=merge', '-p', '{"data":{"greeting":"edited"}}');
    const keeper = new DriftKeeper({ client: world.client, hooks: defaultHooks(), store });
    const at = (t: TestInstance, contentId: string): KeeperInstance => ({ key: t.key, contentId, settings: { intervalMs: 60_000, policy: 'repair', retry: DEFAULT_RETRY }, load: async () => ({ desired: t.desired, render: async () => t.plan }) });
    const old = at(i, 'v1');
    const report = await keeper.check([old]);
    const d = driftOf(report, i);
    expect(summary(d.objects)).toEqual([`ConfigMap ${namespace}/${name}-config changed .data.greeting by kubectl-patch`]);
    // What the drift check decided with: the applied state the sweep's checkpoint names.
    const decidedFor = report.checkpoints?.get(`${namespace}/${name}`)?.applied;
    expect(decidedFor?.runId).toBeDefined();

    // A new commit's plan runs first: the greeting is now "bonjour" in Git, and applied.
    const newer: TestInstance = {
      ...i,
      desired: { ...i.desired, values: { NAME: name, GREETING: 'bonjour' }, params: [{ name: 'NAME' }, { name: 'GREETING' }] },
      plan: { ...i.plan, phases: i.plan.phases.map((p) => ({ ...p, steps: p.steps.map((s) => ({ ...s, actions: s.actions.map((a) => a.action === 'apply' && a.object.kind === 'ConfigMap' ? { ...a, object: { ...a.object, data: { greeting: 'bonjour' } } } : a) })) })) },
    };
    const applied = await deploy(world, newer);
    expect(applied.kind === 'ran' && applied.execution.outcome).toBe('complete');
    const before = (await store.load(i.key))?.checkpoint;
    expect(before?.applied?.runId).not.toBe(decidedFor?.runId);

    // The repair queued for the old applied state runs now (as its worker would, after the plan).
    const events: EngineEvent[] = [];
    const result = await keeper.repair(old, d, { ...(decidedFor ? { decidedFor } : {}), onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ kind: 'skipped', outdated: true });
    // Nothing re-applied: the newer desired state stays; no repair run in the checkpoint, no event.
    expect((await world.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` }))?.['data']).toEqual({ greeting: 'bonjour' });
    expect((await store.load(i.key))?.checkpoint.repair).toBeUndefined();
    expect(events).toEqual([]);
    // The next drift check is due at once and decides with the newer desired state.
    expect(keeper.due([at(newer, 'v2')])).toHaveLength(1);
  });

  it('GIVEN a repair decided for one applied run WHEN another run applied the same desired state meanwhile THEN the repair does nothing (what it found is stale)', async () => {
    const i = await deployed();
    const { namespace, name } = i.key;
    await kubectl('-n', namespace, 'patch', 'configmap', `${name}-config`, '--type=merge', '-p', '{"data":{"greeting":"edited"}}');
    const d = driftOf(await sweepAll(world, [i]), i);
    const cp = (await new ConfigMapCheckpointStore(world.client).load(i.key))?.checkpoint;
    const applied = cp?.applied;
    if (applied === undefined) throw new Error('no applied state');
    const result = await repair({
      client: world.client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(world.client), instance: i.key, drifted: d.objects,
      desired: await desiredSetOf({ desired: i.desired, render: async () => i.plan }), frameworkVersion: '1.0.0', decidedFor: { ...applied, runId: 'an-earlier-run' },
    });
    expect(result).toMatchObject({ kind: 'skipped', outdated: true });
    expect((await world.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-config` }))?.['data']).toEqual({ greeting: 'edited' });
  });
});
