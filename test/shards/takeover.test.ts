/**
 * Takeover of a killed member's instances, on a virtual clock: both members' sleeps, monotonic
 * clocks (lease observation, fences) and wall clocks are driven by the test, which moves time from
 * one due timer to the next and lets each member finish its API calls (real HTTP to the simulated
 * API server) before moving on. API calls take no virtual time, so every figure below is exact and
 * the run is the same every time: no timing assertion depends on the machine.
 *
 * The guarantee (docs/scale-out.md, Takeover): a member killed right after its last renewal R has
 * its instances acted on by the others by R + lease duration - retry period / 2 (plus the time of
 * the API calls), so within the lease duration of the kill; and never while its fence still held
 * (its writes stop at its renew deadline).
 */
import { describe, expect, it } from 'vitest';
import { ShardMember, type ShardMemberOptions } from '../../src/shards/index.js';
import type { LeaderClock } from '../../src/sync/leader.js';
import { clusterForFile } from '../helpers/engine-harness.js';
import { until } from '../helpers/wait.js';

const LEASE = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 } as const;
const BOUND_MS = LEASE.leaseDurationMs - LEASE.retryPeriodMs / 2;
const keys = Array.from({ length: 200 }, (_, i) => `ns-${i % 5}/app-${i}`);
const CONFIG = { repo: 'https://git.example/ops.git', branch: 'main' };
const EPOCH = 1_790_000_000_000;

interface Timer { owner: string; due: number; fire: () => void }

/** Virtual time shared by the members: sleeps wait for the test to move time past them. */
class VirtualTime {
  now = 0;
  private timers: Timer[] = [];
  private readonly frozen = new Set<string>();

  clockOf(owner: string): { clock: LeaderClock; monotonic: () => number } {
    return {
      clock: { now: () => EPOCH + this.now, sleep: (ms, signal) => this.sleep(owner, ms, signal) },
      monotonic: () => this.now,
    };
  }

  /** The owner's timers never fire again: as if its process were killed (SIGKILL) now. */
  freeze(owner: string): void {
    this.frozen.add(owner);
  }

  pending(owner: string): number {
    return this.timers.filter((t) => t.owner === owner).length;
  }

  /** Moves to the next due timer of a running owner and fires every timer due then; the time it moved to. */
  advance(): number {
    const live = this.timers.filter((t) => !this.frozen.has(t.owner));
    if (live.length === 0) throw new Error('no timer to advance to');
    const due = Math.min(...live.map((t) => t.due));
    this.now = Math.max(this.now, due);
    const firing = live.filter((t) => t.due <= this.now);
    this.timers = this.timers.filter((t) => !firing.includes(t));
    for (const t of firing) t.fire();
    return this.now;
  }

  /** The next due time of a running owner's timer. */
  nextDue(): number | undefined {
    const dues = this.timers.filter((t) => !this.frozen.has(t.owner)).map((t) => t.due);
    return dues.length === 0 ? undefined : Math.min(...dues);
  }

  /** Moves to `at`, which no running owner's timer is due before. */
  moveTo(at: number): void {
    if ((this.nextDue() ?? at) < at) throw new Error(`a timer is due before ${at}`);
    this.now = at;
  }

  private sleep(owner: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted === true) { resolve(); return; }
      const timer: Timer = { owner, due: this.now + Math.max(0, ms), fire: () => { signal?.removeEventListener('abort', onAbort); resolve(); } };
      const onAbort = (): void => { this.timers = this.timers.filter((t) => t !== timer); resolve(); };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }
}

describe('takeover of a killed shard member (virtual clock)', () => {
  const world = clusterForFile();
  let set = 0;

  // The offset of the victim's start decides where its renewals fall between the survivor's looks
  // (every 50 ms; 51 and 101 ms: just after one, the worst case for the survivor's observation).
  // `inFlight`: the victim had sent one more renewal when it was killed, and the API server stores it
  // that much later (a slow server, a proxy on the way): the bound counts from when the last renewal
  // was stored, not from the kill (docs/scale-out.md, Takeover).
  it.each([[13, 0], [51, 0], [101, 0], [51, 30], [101, 80]])('GIVEN a member killed right after a renewal (started %i ms after the other), one more renewal stored %i ms after the kill THEN its instances are acted on within the bound from that renewal, never while its fence held', async (offset, inFlight) => {
    const name = `t${++set}`;
    const time = new VirtualTime();
    const member = (identity: string, extra: Partial<ShardMemberOptions> = {}): ShardMember =>
      new ShardMember({ client: world.client, shardSet: name, namespace: 'baton-system', identity, config: CONFIG, ...LEASE, ...time.clockOf(identity), ...extra });
    const survivor = member('survivor');
    const victim = member('victim');
    const abort = new AbortController();
    const forever = (signal: AbortSignal): Promise<void> => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    const running = [survivor];
    /** Both loops (renewal, observation) of every running member are asleep again: its API calls are done. */
    const settled = (): Promise<void> => until(() => running.every((m) => time.pending(m === survivor ? 'survivor' : 'victim') === 2), 10_000, 'members asleep');
    const step = async (): Promise<number> => { const at = time.advance(); await settled(); return at; };

    const survivorDone = survivor.run(forever, abort.signal);
    await settled();
    while ((time.nextDue() ?? offset) < offset) await step();
    time.moveTo(offset);
    void victim.run(forever, new AbortController().signal);
    running.push(victim);
    await settled();
    // Until both act under the same two members and share every instance.
    while (!(survivor.members.length === 2 && victim.members.length === 2 && keys.every((k) => [survivor, victim].filter((m) => m.mayAct(k)).length === 1))) {
      if (time.now > 20 * LEASE.leaseDurationMs) throw new Error('the members never shared the instances');
      await step();
    }
    const victims = keys.filter((k) => victim.mayAct(k));
    expect(victims.length).toBeGreaterThan(40);
    // Letting go pushes the member's status first (seconds when pushes contend): a view that only
    // drops the dead member takes nothing from the survivor, so the takeover must not wait for it.
    let lettingGo = 0;
    survivor.onRelease(() => { lettingGo += 1; return Promise.resolve(); });

    // Run on a little, then kill the victim right after one of its renewals.
    const lease = async (): Promise<string> => (await world.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: victim.lease.name, namespace: 'baton-system' }))?.metadata.resourceVersion ?? '';
    let rv = await lease();
    const until3 = time.now + 3 * LEASE.leaseDurationMs;
    let killedAt: number | undefined;
    while (killedAt === undefined) {
      await step();
      const now = await lease();
      if (now !== rv && time.now > until3 - 2 * LEASE.leaseDurationMs) killedAt = time.now;
      rv = now;
    }
    time.freeze('victim');
    running.splice(running.indexOf(victim), 1);
    // The renewal in flight at the kill lands: written as the victim's thread would (a new renewTime).
    let storedAt = killedAt;
    if (inFlight > 0) {
      while ((time.nextDue() ?? Infinity) < killedAt + inFlight) await step();
      time.moveTo(killedAt + inFlight);
      const current = await world.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: victim.lease.name, namespace: 'baton-system' });
      if (current === undefined) throw new Error('the victim\'s lease is gone');
      await world.client.update({ ...current, spec: { ...(current.spec as Record<string, unknown>), renewTime: new Date(EPOCH + time.now).toISOString().replace('Z', '000Z') } });
      storedAt = time.now;
    }

    let takenAt: number | undefined;
    while (takenAt === undefined) {
      const at = await step();
      const acting = victims.filter((k) => survivor.mayAct(k));
      // Never while the victim could still write: its fence held until its renew deadline.
      if (acting.length > 0) expect(victim.fence.valid).toBe(false);
      if (acting.length === victims.length) takenAt = at;
      if (at - killedAt > 3 * LEASE.leaseDurationMs) throw new Error('no takeover within three lease durations');
    }
    const took = takenAt - killedAt;
    expect(took).toBeGreaterThanOrEqual(LEASE.renewDeadlineMs);
    expect(takenAt - storedAt).toBeLessThanOrEqual(BOUND_MS);
    if (inFlight === 0) expect(took).toBeLessThan(LEASE.leaseDurationMs);
    expect(keys.every((k) => survivor.mayAct(k))).toBe(true);
    expect(lettingGo).toBe(0);

    abort.abort();
    expect((await survivorDone).kind).toBe('aborted');
  });

  it('GIVEN a member asked to stop whose work still drains WHEN the other member leaves THEN it takes up none of the other\'s instances while it drains', async () => {
    const name = `t${++set}`;
    const time = new VirtualTime();
    const member = (identity: string): ShardMember =>
      new ShardMember({ client: world.client, shardSet: name, namespace: 'baton-system', identity, config: CONFIG, ...LEASE, ...time.clockOf(identity) });
    const stopping = member('stopping');
    const leaving = member('leaving');
    const running = [stopping, leaving];
    const settled = (): Promise<void> => until(() => running.every((m) => time.pending(m === stopping ? 'stopping' : 'leaving') === 2), 10_000, 'members asleep');
    const step = async (): Promise<number> => { const at = time.advance(); await settled(); return at; };
    const forever = (signal: AbortSignal): Promise<void> => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // The stopping member's work: asked to stop, it goes on draining until the test lets it end.
    let drained = (): void => {};
    const draining = (signal: AbortSignal): Promise<void> => new Promise((resolve) => signal.addEventListener('abort', () => { drained = resolve; }, { once: true }));
    const stop = new AbortController();
    const leave = new AbortController();
    const stoppingDone = stopping.run(draining, stop.signal);
    const leavingDone = leaving.run(forever, leave.signal);
    await settled();
    while (!(stopping.members.length === 2 && leaving.members.length === 2 && keys.every((k) => [stopping, leaving].filter((m) => m.mayAct(k)).length === 1))) {
      if (time.now > 20 * LEASE.leaseDurationMs) throw new Error('the members never shared the instances');
      await step();
    }
    const leavers = keys.filter((k) => leaving.mayAct(k));
    expect(leavers.length).toBeGreaterThan(40);

    stop.abort();
    leave.abort();
    expect((await leavingDone).kind).toBe('aborted');
    running.splice(running.indexOf(leaving), 1);
    // Looks enough for a member to notice a deleted lease many times over.
    const until2 = time.now + 2 * LEASE.leaseDurationMs;
    while (time.now < until2) {
      await step();
      // Before: it took up the view of itself alone and acted on the leaver's instances while stopping.
      expect(leavers.filter((k) => stopping.mayAct(k))).toEqual([]);
    }
    drained();
    expect((await stoppingDone).kind).toBe('aborted');
  });

  it('GIVEN lease timing without room for a retry period between the renew deadline and the lease duration THEN a shard member refuses it', () => {
    expect(() => new ShardMember({ client: world.client, shardSet: 'x', namespace: 'baton-system', identity: 'x', config: CONFIG, leaseDurationMs: 1000, renewDeadlineMs: 900, retryPeriodMs: 100 }))
      .toThrow(/lease timing: a shard member needs renew deadline \+ retry period \(900 \+ 100 ms\) shorter than the lease duration \(1000 ms\)/);
  });
});
