/**
 * The push turn Lease of a shard set (src/sync/push-turn/) on the simulated API server: first come,
 * first served; the tip the last holder pushed reaches the next; a holder killed while holding blocks
 * the others at most its hold time (on a virtual clock); a stopping member hands on and leaves the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, type HttpKubeClient } from '../../src/kube/http-client.js';
import type { KubeClient } from '../../src/kube/client.js';
import { LeasePushTurn, PUSH_QUEUE_ANNOTATION, pushTurnLeaseName, type HeldTurn, type LeasePushTurnOptions } from '../../src/sync/push-turn/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { until } from '../helpers/wait.js';

const NS = 'baton-system';

/**
 * A virtual monotonic clock: sleeping advances it (and lets the other promises run). Stopped, it stands
 * still and a sleep waits a few real milliseconds (while the real members around it do their part).
 */
function virtualClock(stopped = false): { now: () => number; sleep: (ms: number) => Promise<void>; start: () => void } {
  let t = 0;
  let running = !stopped;
  return {
    now: () => t,
    sleep: async (ms) => {
      if (!running) return new Promise((r) => setTimeout(r, 5));
      t += ms;
      await new Promise((r) => setImmediate(r));
    },
    start: () => { running = true; },
  };
}

/** A client that fails every request once `dead` is set (a member process killed). */
function killable(client: KubeClient): { client: KubeClient; kill: () => void } {
  let dead = false;
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (dead) return Promise.reject(new Error('killed'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: proxy, kill: () => { dead = true; } };
}

describe('the push turn Lease', () => {
  let cluster: TestCluster;
  let client: HttpKubeClient;
  let set = 0;

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = await createKubeClient({ url: cluster.url });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(async () => {
    client.close();
    await cluster.stop();
  });

  const turns = (ids: string[], extra: Partial<LeasePushTurnOptions> = {}): { name: string; of: LeasePushTurn[] } => {
    const name = pushTurnLeaseName(`t${++set}`);
    return { name, of: ids.map((memberId) => new LeasePushTurn({ client, namespace: NS, name, memberId, pollMs: 10, holdMs: 60_000, ...extra })) };
  };
  const queueOf = async (name: string): Promise<string | undefined> =>
    (await client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name, namespace: NS }))?.metadata.annotations?.[PUSH_QUEUE_ANNOTATION];

  it('GIVEN a holder and two members asking in turn WHEN the turn is released THEN they get it in the order they asked, with the tip pushed before', async () => {
    const { name, of: [a, b, c] } = turns(['a', 'b', 'c']);
    const heldA = await a!.take();
    const order: string[] = [];
    const takeB = b!.take().then((h) => { order.push('b'); return h; });
    await until(async () => (await queueOf(name)) === 'b', 10_000, 'b waiting');
    const takeC = c!.take().then((h) => { order.push('c'); return h; });
    await until(async () => (await queueOf(name)) === 'b,c', 10_000, 'c waiting after b');
    await heldA.release('1111111111111111111111111111111111111111');
    const heldB = await takeB;
    expect(heldB.tip).toBe('1111111111111111111111111111111111111111');
    expect(order).toEqual(['b']);
    await heldB.release('2222222222222222222222222222222222222222');
    const heldC = await takeC;
    expect(heldC.tip).toBe('2222222222222222222222222222222222222222');
    expect(order).toEqual(['b', 'c']);
    await heldC.release(undefined);
    // Nobody waits: the next one to ask takes it at once, and learns the last tip pushed.
    const again = await a!.take();
    expect(again.tip).toBe('2222222222222222222222222222222222222222');
    await again.release(undefined);
  });

  it('GIVEN a member killed while holding the turn WHEN another asks THEN it gets the turn once the holder did not renew for the hold time (virtual clock), not before', async () => {
    const name = pushTurnLeaseName(`t${++set}`);
    const victim = killable(client);
    const holdMs = 3000;
    const a = new LeasePushTurn({ client: victim.client, namespace: NS, name, memberId: 'a', holdMs });
    await a.take();
    victim.kill(); // its renewals fail from now on, as a killed process's would not happen
    const clock = virtualClock();
    const b = new LeasePushTurn({ client, namespace: NS, name, memberId: 'b', holdMs, pollMs: 100, now: clock.now, sleep: clock.sleep });
    const held = await b.take();
    expect(clock.now()).toBeGreaterThanOrEqual(holdMs);
    expect(clock.now()).toBeLessThanOrEqual(holdMs + 2 * 100);
    await held.release(undefined);
    await a.leave();
  });

  it('GIVEN a turn handed to a member killed while it waited WHEN the next one waits THEN it gets the turn within the hold time of the hand-over (virtual clock)', async () => {
    const name = pushTurnLeaseName(`t${++set}`);
    const holdMs = 3000;
    const victim = killable(client);
    const a = new LeasePushTurn({ client, namespace: NS, name, memberId: 'a', holdMs, pollMs: 10 });
    const dead = new LeasePushTurn({ client: victim.client, namespace: NS, name, memberId: 'dead', holdMs, pollMs: 10 });
    const heldA = await a.take();
    const abort = new AbortController();
    const deadTake = dead.take(abort.signal).catch(() => undefined);
    await until(async () => (await queueOf(name)) === 'dead', 10_000, 'the doomed member waiting');
    victim.kill();
    abort.abort();
    await deadTake;
    const clock = virtualClock(true);
    const c = new LeasePushTurn({ client, namespace: NS, name, memberId: 'c', holdMs, pollMs: 100, now: clock.now, sleep: clock.sleep });
    let heldC: HeldTurn | undefined;
    const takeC = c.take().then((h) => { heldC = h; });
    await until(async () => (await queueOf(name)) === 'dead,c', 10_000, 'c waiting behind the doomed member');
    await heldA.release(undefined); // handed to 'dead', which never takes it
    clock.start();
    const handedAt = clock.now();
    await takeC;
    expect(heldC).toBeDefined();
    expect(clock.now() - handedAt).toBeGreaterThanOrEqual(holdMs);
    expect(clock.now() - handedAt).toBeLessThanOrEqual(holdMs + 2 * 100);
    await heldC?.release(undefined);
  });

  it('GIVEN a holder that is no live member any more WHEN another asks THEN it takes the turn at once', async () => {
    const { name, of: [a] } = turns(['a']);
    await a!.take();
    const clock = virtualClock();
    const b = new LeasePushTurn({ client, namespace: NS, name, memberId: 'b', holdMs: 60_000, pollMs: 100, now: clock.now, sleep: clock.sleep, live: () => ['b'] });
    const held = await b.take();
    expect(clock.now()).toBe(0);
    await held.release(undefined);
  });

  it('GIVEN a member stopping WHEN it holds the turn or waits for it THEN it hands the turn on and leaves the queue', async () => {
    const { name, of: [a, b, c] } = turns(['a', 'b', 'c']);
    await a!.take();
    const abort = new AbortController();
    const takeB = b!.take(abort.signal).catch(() => 'aborted');
    await until(async () => (await queueOf(name)) === 'b', 10_000, 'b waiting');
    const takeC = c!.take();
    await until(async () => (await queueOf(name)) === 'b,c', 10_000, 'c waiting after b');
    abort.abort();
    expect(await takeB).toBe('aborted');
    await b!.leave();
    expect(await queueOf(name)).toBe('c');
    await a!.leave(); // a stop while holding: the turn goes to c
    const heldC = await takeC;
    await heldC.release(undefined);
  });
});
