/**
 * A member whose fence is lost while it joins (its process stood still past the renew deadline between
 * two of its API calls, as a loaded machine does): run() ends as lost at once, without starting the
 * work. It used to start the work under a signal aborted already, so a work that waits for the abort
 * event (as member.test.ts's does) never ended: run() never returned and the member, seeming to run,
 * acted on nothing (member.test.ts under load: all three members "running, acting on 0 of 300").
 * The stall is made deterministic: the member's monotonic clock jumps when its first list returns.
 */
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../src/kube/client.js';
import { ShardMember, type ShardResult } from '../../src/shards/index.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { until } from '../helpers/wait.js';

const LEASE = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 } as const;
const CONFIG = { repo: 'https://git.example/ops.git', branch: 'main' };

/** `client` whose first list answer arrives after `stall` (the clock jumps by `ms`), as if the process stood still. */
function stallingAtFirstList(client: KubeClient, stall: (ms: number) => void, ms: number): KubeClient {
  let stalled = false;
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const out: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop === 'list' && !stalled) { stalled = true; stall(ms); }
        return out;
      };
    },
  });
}

describe('a shard member that loses its lease while joining', () => {
  const world = clusterForFile();

  it('GIVEN a stall past the renew deadline during join THEN run() ends as lost without starting the work (it never returned before)', async () => {
    let jumped = 0;
    const monotonic = (): number => performance.now() + jumped;
    const client = stallingAtFirstList(world.client, (ms) => { jumped += ms; }, 2 * LEASE.leaseDurationMs);
    const member = new ShardMember({ client, shardSet: 'lost-in-join', namespace: 'baton-system', identity: 'a', config: CONFIG, ...LEASE, monotonic });
    let started = false;
    let result: ShardResult | undefined;
    // Waits for the abort event only, as a work may: an already aborted signal never sends one.
    const work = (signal: AbortSignal): Promise<void> => {
      started = true;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    };
    void member.run(work).then((r) => { result = r; });
    // Before the fix: never met (run() waited on the work forever).
    await until(() => result !== undefined, 60_000, 'run() ends');
    expect(result?.kind).toBe('lost');
    expect(started).toBe(false);
    expect(member.fence.isLost).toBe(true);
  });
});
