/**
 * `baton pod restart|replace` as the library runs them against the simulated cluster: the pod is
 * deleted and comes back Ready (restart keeps its claims; replace gets new ones, off a failed node),
 * recorded as a run in the checkpoint with engine events; bad input changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMapCheckpointStore } from '../../src/plans/checkpoint-configmap.js';
import { defaultHooks } from '../../src/plans/defaults.js';
import type { EngineEvent } from '../../src/plans/events.js';
import { runPodAction, type PodActionOptions } from '../../src/recovery/index.js';
import { isReady } from '../helpers/agent-harness.js';
import { until } from '../helpers/wait.js';
import { nodeOf } from '../sync/fixtures.js';
import { dbInstance, deploy, recoveryWorld, type RecoveryWorld } from './world.js';

let world: RecoveryWorld;
const db = dbInstance('shop', 'orders');
const other = dbInstance('shop', 'billing', 1);

beforeAll(async () => {
  world = await recoveryWorld();
  expect(await deploy(world, db)).toMatchObject({ kind: 'ran', execution: { outcome: 'complete' } });
  expect(await deploy(world, other)).toMatchObject({ kind: 'ran', execution: { outcome: 'complete' } });
}, 30_000);
afterAll(async () => world.stop());

function action(overrides: Partial<PodActionOptions> & Pick<PodActionOptions, 'action' | 'pods'>): { options: PodActionOptions; events: EngineEvent[] } {
  const events: EngineEvent[] = [];
  return {
    events,
    options: { client: world.client, hooks: defaultHooks(), store: new ConfigMapCheckpointStore(world.client), instance: db.key, reason: 'test', by: 'Jane <jane@example.com>', onEvent: (e) => events.push(e), timeoutSeconds: 30, ...overrides },
  };
}

describe('pod restart', () => {
  it('GIVEN a ready StatefulSet pod WHEN restarted THEN it comes back Ready with a new uid on the same claim, recorded as a pod-restart run', async () => {
    const before = await world.pod('shop', 'orders-db-1');
    const claim = await world.claim('shop', 'data-orders-db-1');
    const { options, events } = action({ action: 'restart', pods: ['orders-db-1'], reason: 'stuck connection pool' });
    const result = await runPodAction(options);
    expect(result.kind).toBe('complete');
    const after = await world.pod('shop', 'orders-db-1');
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
    expect(isReady(after)).toBe(true);
    expect((await world.claim('shop', 'data-orders-db-1'))?.metadata.uid).toBe(claim?.metadata.uid);
    expect(events.map((e) => e.type).filter((t) => t !== 'checkpoint' && t !== 'step-waiting')).toEqual(['plan-started', 'phase-started', 'step-started', 'step-complete', 'phase-complete', 'plan-complete']);
    const cp = (await new ConfigMapCheckpointStore(world.client).load(db.key))?.checkpoint;
    expect(cp?.pods?.last).toMatchObject({ plan: 'pod-restart', reason: 'stuck connection pool', args: { POD: 'orders-db-1', BY: 'Jane <jane@example.com>' }, state: { status: 'COMPLETE' } });
    expect(cp?.pods?.recent[0]).toMatchObject({ pod: 'orders-db-1', action: 'restart', by: 'Jane <jane@example.com>' });
    // The active (desired state) run is untouched.
    expect(cp?.active?.plan).toBe('deploy');
  }, 30_000);

  it('GIVEN a Deployment pod WHEN restarted THEN the old pod is gone and its ReplicaSet is ready again with a new pod', async () => {
    const web = (await world.pods('shop')).find((p) => p.metadata.name?.startsWith('orders-web-'));
    const { options } = action({ action: 'restart', pods: [web?.metadata.name ?? ''] });
    expect((await runPodAction(options)).kind).toBe('complete');
    const now = (await world.pods('shop')).filter((p) => p.metadata.name?.startsWith('orders-web-'));
    expect(now.map((p) => p.metadata.uid)).not.toContain(web?.metadata.uid);
    expect(now.some(isReady)).toBe(true);
  }, 30_000);
});

describe('a pod request carried out once (issue #20 follow-up)', () => {
  it('GIVEN a pod request already carried out (by another member before a handover) WHEN the action runs for the same request id THEN it restarts nothing and records nothing', async () => {
    const store = new ConfigMapCheckpointStore(world.client);
    const first = action({ action: 'restart', pods: ['orders-db-0'], requestId: 'r-once-1', reason: 'requested by Jane (request r-once-1)' });
    expect((await runPodAction(first.options)).kind).toBe('complete');
    const before = JSON.stringify((await store.load(db.key))?.checkpoint);
    expect(JSON.parse(before)).toMatchObject({ handledRequests: expect.arrayContaining(['r-once-1']) });
    const uid = (await world.pod('shop', 'orders-db-0'))?.metadata.uid;

    // The same request again: this member decided with a record older than the checkpoint.
    const again = action({ action: 'restart', pods: ['orders-db-0'], requestId: 'r-once-1', reason: 'requested by Jane (request r-once-1)' });
    const result = await runPodAction(again.options);
    expect(result).toMatchObject({ kind: 'handled', requestId: 'r-once-1' });
    expect(again.events).toEqual([]);
    expect(JSON.stringify((await store.load(db.key))?.checkpoint)).toBe(before);
    expect((await world.pod('shop', 'orders-db-0'))?.metadata.uid).toBe(uid);
  }, 30_000);

  it('GIVEN a handled request id WHEN the same request names a pod that does not exist THEN it is not refused a second time either (nothing recorded)', async () => {
    const store = new ConfigMapCheckpointStore(world.client);
    const before = JSON.stringify((await store.load(db.key))?.checkpoint);
    const again = action({ action: 'restart', pods: ['orders-db-9'], requestId: 'r-once-1' });
    expect(await runPodAction(again.options)).toMatchObject({ kind: 'handled', requestId: 'r-once-1' });
    expect(again.events).toEqual([]);
    expect(JSON.stringify((await store.load(db.key))?.checkpoint)).toBe(before);
  }, 30_000);

  it('GIVEN a request id the caller\'s status record names as handled WHEN the action runs for it THEN nothing is done or recorded', async () => {
    const store = new ConfigMapCheckpointStore(world.client);
    const before = JSON.stringify((await store.load(db.key))?.checkpoint);
    const uid = (await world.pod('shop', 'orders-db-0'))?.metadata.uid;
    const again = action({ action: 'restart', pods: ['orders-db-0'], requestId: 'r-status-1', handled: ['r-status-1'] });
    expect(await runPodAction(again.options)).toMatchObject({ kind: 'handled', requestId: 'r-status-1' });
    expect(again.events).toEqual([]);
    expect(JSON.stringify((await store.load(db.key))?.checkpoint)).toBe(before);
    expect((await world.pod('shop', 'orders-db-0'))?.metadata.uid).toBe(uid);
  }, 30_000);
});

describe('pod replace', () => {
  it('GIVEN the node under orders-db-2 failed WHEN replaced THEN it comes back Ready on another node with a new claim and volume', async () => {
    const before = await world.pod('shop', 'orders-db-2');
    const claim = await world.claim('shop', 'data-orders-db-2');
    const lost = nodeOf(before);
    await world.setNodeDown(lost, true);
    await until(async () => !isReady(await world.pod('shop', 'orders-db-2')), 15_000, 'pod not ready on the failed node');
    const { options, events } = action({ action: 'replace', pods: ['orders-db-2'], reason: 'node lost' });
    const result = await runPodAction(options);
    expect(result.kind).toBe('complete');
    const after = await world.pod('shop', 'orders-db-2');
    expect(isReady(after)).toBe(true);
    expect(nodeOf(after)).not.toBe(lost);
    const newClaim = await world.claim('shop', 'data-orders-db-2');
    expect(newClaim?.metadata.uid).not.toBe(claim?.metadata.uid);
    expect((newClaim?.['status'] as { phase?: string }).phase).toBe('Bound');
    const complete = events.find((e) => e.type === 'plan-complete');
    expect(complete?.type === 'plan-complete' && complete.run.state.status === 'COMPLETE' && complete.run.state.message).toMatch(/orders-db-2: replaced on node \S+ \(was .+\), ready with new claim data-orders-db-2/);
    await world.setNodeDown(lost, false);
  }, 30_000);
});

describe('bad input', () => {
  it.each([
    ['an unknown instance', { instance: { namespace: 'shop', name: 'nope' }, pods: ['orders-db-0'] }, /INSTANCE_UNKNOWN|not known to Baton/],
    ['an unknown pod', { pods: ['orders-db-9'] }, /pod orders-db-9 does not exist in namespace shop; pods of shop\/orders: orders-db-0, orders-db-1, orders-db-2, orders-web-/],
    ['a pod of another instance', { pods: ['billing-db-0'] }, /pod billing-db-0 does not belong to instance shop\/orders \(it belongs to shop\/billing\)/],
  ] as const)('GIVEN %s WHEN a restart is asked THEN it is refused naming it, and nothing is deleted or recorded', async (_what, overrides, message) => {
    const store = new ConfigMapCheckpointStore(world.client);
    const before = JSON.stringify((await store.load(db.key))?.checkpoint);
    const uids = (await world.pods('shop')).map((p) => p.metadata.uid).sort();
    const { options, events } = action({ action: 'restart', ...overrides });
    await expect(runPodAction(options)).rejects.toThrow(message);
    expect(events).toEqual([]);
    expect(JSON.stringify((await store.load(db.key))?.checkpoint)).toBe(before);
    expect((await world.pods('shop')).map((p) => p.metadata.uid).sort()).toEqual(uids);
  }, 30_000);
});
