/**
 * The controller manager's settled signal (ControllerManager.settled): it resolves only once no key is
 * queued, being reconciled or waiting on a delay, so a test can assert "the controllers changed nothing
 * more" without sleeping.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startControllers, type ControllerManager } from '../../../src/cluster/controllers/index.js';
import type { Clock } from '../../../src/cluster/controllers/runtime/clock.js';
import { realClock } from '../../../src/cluster/controllers/runtime/clock.js';
import type { Controller } from '../../../src/cluster/controllers/runtime/controller.js';
import { WorkQueue } from '../../../src/cluster/controllers/runtime/queue.js';
import { FakeKube } from './fake-kube.js';
import { deployment, hasCondition, startHarness, type Harness } from './harness.js';

/** Settles a promise's state into a flag, to check that it has not resolved yet. */
function track(p: Promise<void>): { done: boolean } {
  const state = { done: false };
  void p.then(() => { state.done = true; });
  return state;
}
const turns = async (n: number): Promise<void> => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };

describe('the work queue: idle', () => {
  it('GIVEN a key queued, then processed, then done THEN it is idle only at the end', async () => {
    const q = new WorkQueue(realClock);
    expect(q.idleWithin(0)).toBe(true);
    q.add('a');
    expect(q.idleWithin(0)).toBe(false);
    const key = await q.next();
    expect(q.idleWithin(0)).toBe(false);
    q.done(key!);
    expect(q.idleWithin(0)).toBe(true);
  });

  it('GIVEN a delayed key THEN it is busy within the horizon that reaches it and idle within a shorter one', () => {
    let fire: (() => void) | undefined;
    const clock: Clock = { now: () => 0, setTimeout: (fn) => { fire = fn; return { cancel: () => { fire = undefined; } }; } };
    const q = new WorkQueue(clock);
    q.addAfter('a', 100);
    expect(q.idleWithin(100)).toBe(false);
    expect(q.idleWithin(99)).toBe(true);
    fire?.();
    expect(q.length).toBe(1);
    expect(q.idleWithin(0)).toBe(false);
  });
});

describe('the controller manager: settled', () => {
  let manager: ControllerManager | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await manager?.stop();
    await h?.stop();
    manager = undefined;
    h = undefined;
  });

  /** A controller of Services that holds the reconcile of `default/probe` until released, and requeues it once. */
  function probeController(): { controller: Controller; started: Promise<void>; release(): void; runs: () => number } {
    let release = (): void => {};
    let markStarted = (): void => {};
    const started = new Promise<void>((r) => { markStarted = r; });
    const gate = new Promise<void>((r) => { release = r; });
    let runs = 0;
    const controller: Controller = {
      name: 'probe',
      kind: 'Service',
      async reconcile(key) {
        if (key !== 'default/probe') return undefined;
        runs++;
        markStarted();
        await gate;
        return runs === 1 ? { requeueAfterMs: 30 } : undefined;
      },
    };
    return { controller, started, release: () => release(), runs: () => runs };
  }

  it('GIVEN a reconcile in flight THEN settled waits for it, and for the delayed requeue it asks for', async () => {
    const kube = new FakeKube();
    const probe = probeController();
    manager = startControllers({ server: { url: 'http://unused.invalid' }, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, nodes: 1, client: kube }, [probe.controller]);
    await manager.ready();
    await manager.settled();
    await kube.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'probe', namespace: 'default' }, spec: {} });
    await probe.started;
    const settled = track(manager.settled());
    await turns(5);
    expect(settled.done).toBe(false);
    probe.release();
    await manager.settled();
    // The first run asked to be looked at again in 30 ms: settled came only after that second run.
    expect(probe.runs()).toBe(2);
  });

  it('GIVEN a requeue beyond the horizon THEN settled does not wait for it', async () => {
    const kube = new FakeKube();
    const probe = probeController();
    manager = startControllers({ server: { url: 'http://unused.invalid' }, timing: { podStartDelayMs: 10, readyDelayMs: 10 }, nodes: 1, client: kube }, [probe.controller]);
    await manager.ready();
    await kube.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'probe', namespace: 'default' }, spec: {} });
    await probe.started;
    probe.release();
    await manager.settled(10);
    expect(probe.runs()).toBe(1);
  });

  it('GIVEN a Deployment just created THEN settled resolves once its rollout is done: every pod Ready, nothing more to do', async () => {
    h = await startHarness();
    await h.kube.create(deployment('web', 3));
    await h.manager.settled();
    const pods = h.kube.all('Pod');
    expect(pods).toHaveLength(3);
    expect(pods.every((p) => hasCondition(p, 'Ready'))).toBe(true);
    expect(hasCondition(h.kube.all('Deployment')[0], 'Available')).toBe(true);
    // Nothing more is written to the workload (Events are recorded apart, outside the queues).
    const writes = (): string[] => h!.kube.calls.filter((c) => /^(create|patch|delete) /.test(c) && !c.includes(' Event '));
    const before = writes();
    await new Promise((r) => setTimeout(r, 0));
    await h.manager.settled();
    expect(writes()).toEqual(before);
  });

  it('GIVEN a stopped manager THEN settled resolves at once', async () => {
    h = await startHarness();
    await h.manager.stop();
    await h.manager.settled();
    h = undefined;
  });
});
