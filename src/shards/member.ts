/**
 * One replica's membership in a shard set: its member Lease, the member set it acts under (its view)
 * and the instances that view gives it (rendezvous hashing of `namespace/name` over the live members).
 *
 * No two members act on one instance at once. A member publishes its view in its lease only after it
 * stopped acting on every instance the new view takes from it (running steps ended, their status
 * pushed); and it starts work on an instance only when its published view gives it the instance and no
 * other live member's published view gives that member the instance (read after its own publication).
 * A member that dies keeps its claims until its lease is seen unchanged for the lease duration less
 * one retry period, and its fence stopped its writes at the renew deadline before that (renew
 * deadline + retry period < lease duration is required). Leases are judged by the local clock only
 * (see membership.ts), so clock skew between replicas does not matter.
 *
 * Takeover bound: the others look at the leases every half retry period, and also at the moment a
 * member's lease is due to count as gone; so a member whose last renewal was stored at R (before its
 * kill, or after it when that renewal was in flight) is seen renewing by R + retry/2 + the round trip
 * of that list (a new record counts from when the answer is handled), counts as gone lease duration -
 * retry after that sighting, and the others act under a view without it after one more list and the
 * publication of that view (then a list of the others' views before acting on its instances; a view
 * that only drops members takes nothing away from a survivor, so nothing is let go first). On an idle
 * machine, where those API calls take well under retry/2, that is within the lease duration of the
 * kill; under load the calls' time is the margin (docs/scale-out.md, Takeover).
 * test/shards/takeover.test.ts proves it on a virtual clock.
 */
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { LeaseFence } from '../fencing/index.js';
import { monotonicMs } from '../fencing/shared-fence.js';
import { defaultIdentity, realClock, type LeaderClock } from '../sync/leader.js';
import type { InstanceOwnership, OwnershipSnapshot } from '../sync/ownership.js';
import { LeasePushTurn, pushTurnLeaseName } from '../sync/push-turn/index.js';
import { ShardError } from './errors.js';
import { ThreadedMemberLease, type LeaseClientOptions } from './lease-renewer/index.js';
import { MemberLease, SHARD_SET_LABEL, type MemberLeaseHandle } from './member-lease.js';
import { MembershipObserver, type Member } from './membership.js';
import { Assignment } from './rendezvous.js';

export type ShardLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export interface ShardConfig {
  repo: string;
  branch: string;
  statusBranch?: string;
}

export interface ShardMemberOptions {
  /** The client for the member leases (not fenced: the lease renews the fence). */
  client: KubeClient;
  /** The shard set's name: a DNS label of at most 40 characters. */
  shardSet: string;
  namespace: string;
  identity?: string;
  config: ShardConfig;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  clock?: LeaderClock;
  /** Monotonic milliseconds for lease observation and the fence (default monotonicMs; not with `leaseThread`). */
  monotonic?: () => number;
  /**
   * Renew the member lease from a thread of its own (lease-renewer/), with a client made from these
   * options: a busy event loop then does not cost the lease. `clock` and `monotonic` do not reach that
   * thread (it reads the real clocks).
   */
  leaseThread?: { client: LeaseClientOptions; livenessMs?: number };
  /** How long a push turn holder that stopped renewing blocks the others (default 5000 ms; see push-turn/). */
  pushTurnHoldMs?: number;
  log?: ShardLog;
}

export type ShardResult = { kind: 'completed' } | { kind: 'lost'; why: string } | { kind: 'refused'; error: ShardError } | { kind: 'aborted' };

const SHARD_SET = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

/** The repository URL without credentials, so neither the hash nor the lease names them. */
const withoutUserinfo = (url: string): string => url.replace(/\/\/[^@/]*@/, '//');

export function configHashOf(config: ShardConfig): string {
  return createHash('sha256').update(JSON.stringify([withoutUserinfo(config.repo), config.branch, config.statusBranch ?? ''])).digest('hex').slice(0, 16);
}

export function configTextOf(config: ShardConfig): string {
  return `repo=${withoutUserinfo(config.repo)} branch=${config.branch}${config.statusBranch ? ` statusBranch=${config.statusBranch}` : ''}`.slice(0, 500);
}

interface Other { id: string; view: Assignment }

export class ShardMember implements InstanceOwnership {
  readonly fence: LeaseFence;
  readonly lease: MemberLeaseHandle;
  /** The members' turns to push status to their branch (the status writer takes it; left when the member stops). */
  readonly pushTurn: LeasePushTurn;
  readonly id: string;
  readonly configHash: string;
  private readonly clock: LeaderClock;
  private readonly monotonic: () => number;
  private readonly log: ShardLog;
  private readonly observer: MembershipObserver;
  private adopted: Assignment | undefined;
  private releasing: Assignment | undefined;
  /** Asked to stop (the run's signal): its work is ending, so it takes on no other member's instances. */
  private stopping = false;
  /** Other live members' published views, read after this member's own last publication. */
  private others: Other[] | undefined;
  private othersKey = '';
  private counter = 0;
  private releaser: (claims: (id: string) => boolean) => Promise<void> = () => Promise.resolve();
  private readonly listeners: Array<() => void> = [];
  private readonly warnedForeign = new Set<string>();
  private readonly views = new Map<string, Assignment>();
  /** Monotonic ms at which the first other live member counts as gone unless it renews (the next look is then at the latest). */
  private nextExpiry: number | undefined;
  /** Live members of this config, as last seen (ids). */
  members: string[] = [];

  constructor(private readonly options: ShardMemberOptions) {
    if (!SHARD_SET.test(options.shardSet)) {
      throw new ShardError('SHARD_SETTING_INVALID', `shard set name: expected a lowercase DNS label of at most 40 characters (letters, digits, '-'), got ${JSON.stringify(options.shardSet)}`, { shardSet: options.shardSet });
    }
    if (!(options.renewDeadlineMs + options.retryPeriodMs < options.leaseDurationMs)) {
      throw new ShardError('SHARD_SETTING_INVALID', `lease timing: a shard member needs renew deadline + retry period (${options.renewDeadlineMs} + ${options.retryPeriodMs} ms) shorter than the lease duration (${options.leaseDurationMs} ms): the others count a member gone one retry period before its lease duration, after its writes stopped at its renew deadline`,
        { leaseDurationMs: options.leaseDurationMs, renewDeadlineMs: options.renewDeadlineMs, retryPeriodMs: options.retryPeriodMs });
    }
    this.clock = options.clock ?? realClock;
    this.monotonic = options.leaseThread ? monotonicMs : options.monotonic ?? monotonicMs;
    this.log = options.log ?? (() => undefined);
    this.configHash = configHashOf(options.config);
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs } = options;
    const task = { namespace: options.namespace, shardSet: options.shardSet, identity: options.identity ?? defaultIdentity(), configHash: this.configHash, configText: configTextOf(options.config) };
    if (options.leaseThread) {
      const lease = new ThreadedMemberLease(task, { ...options.leaseThread, leaseDurationMs, renewDeadlineMs, retryPeriodMs, log: this.log });
      this.lease = lease;
      this.fence = lease.fence;
    } else {
      this.fence = new LeaseFence({ renewDeadlineMs, now: this.monotonic });
      this.lease = new MemberLease({
        client: options.client, ...task, leaseDurationMs, renewDeadlineMs, retryPeriodMs,
        fence: this.fence, now: () => this.clock.now(), sleep: (ms, signal) => this.clock.sleep(ms, signal), log: this.log,
      });
    }
    this.id = this.lease.memberId;
    this.pushTurn = new LeasePushTurn({
      client: options.client, namespace: options.namespace, name: pushTurnLeaseName(options.shardSet), memberId: this.id,
      // Not the shard-set label: the push turn Lease is no member's.
      labels: { 'baton.dev/push-turn': options.shardSet }, live: () => (this.members.length > 0 ? this.members : undefined),
      ...(options.pushTurnHoldMs !== undefined ? { holdMs: options.pushTurnHoldMs } : {}), log: this.log,
    });
    this.observer = new MembershipObserver(options.leaseDurationMs, options.retryPeriodMs);
  }

  get version(): number {
    return this.counter;
  }

  /** Stops the agent's work on the instances a new view takes away (before the view is published). */
  onRelease(release: (claims: (id: string) => boolean) => Promise<void>): void {
    this.releaser = release;
  }

  /** Called whenever the instances this member may act on changed (the agent polls at once). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  claims(id: string): boolean {
    return claimsUnder(this.id, this.adopted, this.releasing, id);
  }

  mayAct(id: string): boolean {
    return !this.fence.isLost && mayActUnder(this.id, this.adopted, this.releasing, this.others, id);
  }

  /** The members of the view this member acts under: they all push status to the one branch. */
  pushers(): number {
    return Math.max(1, this.adopted?.members.length ?? 1);
  }

  snapshot(): OwnershipSnapshot {
    const { id, adopted, releasing, others, counter } = this;
    return { version: counter, claims: (key) => claimsUnder(id, adopted, releasing, key), mayAct: (key) => mayActUnder(id, adopted, releasing, others, key) };
  }

  /** Creates the member lease and reads the others: refuses (ShardError) when an earlier member has another configuration. */
  async join(): Promise<void> {
    await this.lease.renew();
    this.log('info', `joined shard set ${this.options.shardSet} as member ${this.id}`, { member: this.id, lease: this.lease.name });
    // A member of another configuration may be running, or may have crashed and not yet expired: watch
    // it (renewing meanwhile) until it renews (refuse) or expires (go on).
    for (;;) {
      const foreign = (await this.list()).filter((m) => m.live && m.configHash !== this.configHash && m.leaseName !== this.lease.name);
      const running = foreign.find((m) => m.renewing);
      if (running) throw this.mismatch(running);
      if (foreign.length === 0) break;
      await this.clock.sleep(this.options.retryPeriodMs);
      await this.lease.renew();
    }
    await this.tick();
  }

  /**
   * Joins, then runs `work` with a signal that aborts when the membership is lost (fence) or refused,
   * or `signal` aborts; keeps renewing and watching the members meanwhile; deletes the member lease
   * when the work ends, unless it was lost. A membership lost while joining, or a `signal` aborted by
   * then, ends the run without starting `work`.
   */
  async run(work: (signal: AbortSignal) => Promise<void>, signal?: AbortSignal): Promise<ShardResult> {
    try {
      await this.join();
    } catch (err) {
      if (err instanceof ShardError) {
        await this.lease.release();
        return { kind: 'refused', error: err };
      }
      throw err;
    }
    const workAbort = new AbortController();
    const loops = new AbortController();
    let refused: ShardError | undefined;
    let lost: string | undefined;
    const onOuter = (): void => { this.stopping = true; workAbort.abort(); };
    signal?.addEventListener('abort', onOuter);
    if (signal?.aborted === true) onOuter();
    this.fence.onLost((why) => { lost = why; this.bump(); workAbort.abort(); });
    const renewing = this.lease.keepRenewing(loops.signal);
    const watching = (async () => {
      while (!loops.signal.aborted) {
        await this.clock.sleep(this.untilNextLook(), loops.signal);
        if (loops.signal.aborted || this.fence.isLost) break;
        try {
          await this.tick();
        } catch (err) {
          if (err instanceof ShardError) { refused = err; workAbort.abort(); break; }
          this.log('warn', `shard membership: ${errorMessage(err)}`);
        }
      }
    })();
    try {
      // Not started under a signal aborted already (the fence lost while joining, e.g. a stall past the
      // renew deadline; or stopped before): it would hear no abort event, and a work that waits for one
      // kept run() from ever returning, its member acting on nothing while it seemed to run (seen under
      // load in test/shards/member.test.ts). `isLost` notices an expired fence now, not at the next look.
      if (!this.fence.isLost && !workAbort.signal.aborted) await work(workAbort.signal);
    } finally {
      signal?.removeEventListener('abort', onOuter);
      loops.abort();
      await Promise.all([renewing, watching]);
      // A stopping member hands on a turn handed to it and leaves the queue: nobody waits for it.
      await this.pushTurn.leave();
      if (lost === undefined && !this.fence.isLost) await this.lease.release();
    }
    if (refused) return { kind: 'refused', error: refused };
    if (lost !== undefined || this.fence.isLost) return { kind: 'lost', why: lost ?? 'the member lease fence was lost' };
    return signal?.aborted === true ? { kind: 'aborted' } : { kind: 'completed' };
  }

  /**
   * Half a retry period, or less when another member is due to count as gone sooner: a renewal is seen
   * at most half a retry period after it happened, and a dead member is noticed the moment it expires.
   */
  private untilNextLook(): number {
    const look = this.options.retryPeriodMs / 2;
    if (this.nextExpiry === undefined) return look;
    return Math.min(look, Math.max(this.nextExpiry - this.monotonic(), 1));
  }

  /** One look at the members: refuse a config mismatch, adopt a new view (releasing first), read the others' views. */
  async tick(): Promise<void> {
    this.nextExpiry = undefined;
    const members = await this.list();
    const expiries = members.filter((m) => m.live && m.leaseName !== this.lease.name).map((m) => m.expiresAt);
    const desired = this.viewOf(members);
    if (desired.id === this.adopted?.id || (this.stopping && !addsOnly(this.adopted, desired))) {
      // A stopping member does not take up a view that hands it a gone member's instances: its work is
      // draining and would start none of them, while loading their records would only grow it (seen
      // in the scale bench: the last member to stop took up all 10,000 as the others left, +7 MiB).
      // The others act on them once it has left too. A view that only adds members is still taken up:
      // it gives the newcomers their share, which this member must let go of first.
      await this.takeOthers(members);
    } else {
      const prior = this.adopted;
      this.releasing = desired;
      this.bump();
      // Nothing of what the new view takes away may still run or hold unpushed status when it is published.
      // A view that only drops members takes nothing from this one (rendezvous hashing moves only the
      // dropped members' instances), so a takeover does not wait for a status push first.
      if (!dropsOnly(this.adopted, desired)) await this.releaser((id) => this.claims(id));
      this.adopted = desired;
      this.releasing = undefined;
      this.others = undefined;
      this.bump();
      await this.lease.renew(desired.members);
      const gone = goneFrom(prior, desired, members, this.monotonic(), this.clock.now());
      this.log('info', `shard set ${this.options.shardSet}: acting under members ${desired.members.join(', ')}${gone.length > 0 ? ` (gone: ${gone.map((g) => g.text).join('; ')})` : ''}`,
        { member: this.id, members: desired.members, ...(gone.length > 0 ? { gone: gone.map((g) => g.fields) } : {}) });
      await this.takeOthers(await this.list());
    }
    await this.cleanup(members);
    if (expiries.length > 0) this.nextExpiry = Math.min(...expiries);
  }

  private async list(): Promise<Member[]> {
    const sentAt = this.monotonic();
    const { items } = await this.options.client.list('coordination.k8s.io/v1', 'Lease', this.options.namespace, { labelSelector: `${SHARD_SET_LABEL}=${this.options.shardSet}` });
    // Judged as of the send time: a busy loop may handle the answer long after the server gave it (membership.ts).
    const members = this.observer.observe(items, this.monotonic(), sentAt);
    this.checkConfig(members);
    return members;
  }

  /**
   * A member with another configuration, renewing its lease: a member that is joining refuses to take
   * part (see join); a member already acting ignores it (logged once), so a misconfigured replica
   * never takes instances from a working shard set.
   */
  private checkConfig(members: readonly Member[]): void {
    for (const m of members) {
      if (!m.live || m.configHash === this.configHash || m.leaseName === this.lease.name) continue;
      if (this.adopted === undefined) {
        if (m.renewing) throw this.mismatch(m);
        continue;
      }
      if (!this.warnedForeign.has(m.leaseName)) {
        this.warnedForeign.add(m.leaseName);
        this.log('error', `shard set ${this.options.shardSet}: ignoring member ${m.id} (${m.identity}): it runs with ${m.configText} (config hash ${m.configHash}), not this set's ${configTextOf(this.options.config)}; it should refuse to join`, { member: m.id });
      }
    }
  }

  private mismatch(m: Member): ShardError {
    return new ShardError('SHARD_CONFIG_MISMATCH',
      `shard set ${this.options.shardSet}: member ${m.id} (lease ${this.options.namespace}/${m.leaseName}, ${m.identity}) runs with ${m.configText} (config hash ${m.configHash}); this agent has ${configTextOf(this.options.config)} (config hash ${this.configHash}). Every member of a shard set must watch the same repository and branches: refusing to join`,
      { shardSet: this.options.shardSet, member: m.id, theirs: m.configHash, mine: this.configHash, lease: this.lease.name });
  }

  private viewOf(members: readonly Member[]): Assignment {
    const ids = members.filter((m) => m.live && m.configHash === this.configHash).map((m) => m.id);
    this.members = [...new Set([...ids, this.id])].sort();
    return this.assignment(this.members);
  }

  private assignment(ids: readonly string[]): Assignment {
    const key = [...ids].sort().join(',');
    let a = this.views.get(key);
    if (a === undefined) {
      if (this.views.size > 16) this.views.clear();
      this.views.set(key, (a = new Assignment(ids)));
    }
    return a;
  }

  /**
   * The others' views count only from a list that shows this member's own lease with the view it acts
   * under: read after its publication. A publication that failed (its write answered with an error,
   * the tick abandoned) left the former view there, and the next look found nothing new to adopt: this
   * member acted under a view the others could not see. It publishes again first, acting on nothing
   * meanwhile.
   */
  private async takeOthers(members: readonly Member[]): Promise<void> {
    const adopted = this.adopted;
    const published = (list: readonly Member[]): string[] | undefined => list.find((m) => m.leaseName === this.lease.name)?.view;
    if (adopted === undefined || sameView(published(members), adopted)) { this.setOthers(members); return; }
    if (this.others !== undefined) { this.others = undefined; this.bump(); }
    this.log('warn', `shard set ${this.options.shardSet}: lease ${this.lease.name} shows members ${published(members)?.join(', ') ?? '(none)'}, not ${adopted.members.join(', ')} this member acts under: publishing them again`, { member: this.id, members: adopted.members });
    await this.lease.renew(adopted.members);
    const again = await this.list();
    if (sameView(published(again), adopted)) this.setOthers(again);
  }

  private setOthers(members: readonly Member[]): void {
    const others = members.filter((m) => m.live && m.configHash === this.configHash && m.id !== this.id && m.view !== undefined)
      .map((m) => ({ id: m.id, view: this.assignment(m.view ?? []) }));
    const key = others.map((o) => `${o.id}:${o.view.id}`).sort().join(';');
    const changed = this.others === undefined || key !== this.othersKey;
    this.others = others;
    this.othersKey = key;
    if (changed) this.bump();
  }

  /** Leases of members gone for three lease durations are deleted (a replica that restarts is a new member). */
  private async cleanup(members: readonly Member[]): Promise<void> {
    for (const m of members) {
      if (m.live || m.leaseName === this.lease.name || m.quietMs < 3 * this.options.leaseDurationMs) continue;
      try {
        await this.options.client.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: m.leaseName, namespace: this.options.namespace }, { preconditions: { resourceVersion: m.resourceVersion } });
        this.log('info', `deleted the lease of member ${m.id}, gone for ${Math.round(m.quietMs / 1000)} s`, { member: m.id });
      } catch (err) {
        this.log('warn', `deleting the lease of gone member ${m.id}: ${errorMessage(err)}`);
      }
    }
  }

  private bump(): void {
    this.counter += 1;
    for (const listen of this.listeners) {
      try { listen(); } catch { /* a listener never disturbs the membership */ }
    }
  }
}

/**
 * The members `prior` had and `next` has not, with when this member last saw each one's Lease change
 * (wall clock, converted from the monotonic sighting): what a takeover's timing is judged by.
 */
function goneFrom(prior: Assignment | undefined, next: Assignment, members: readonly Member[], monotonicNow: number, wallNow: number): Array<{ text: string; fields: Record<string, unknown> }> {
  if (prior === undefined) return [];
  const kept = new Set(next.members);
  return prior.members.filter((id) => !kept.has(id)).map((id) => {
    const m = members.find((x) => x.id === id);
    if (m === undefined) return { text: `${id}, its lease deleted`, fields: { member: id, lease: 'deleted' } };
    const seenAt = new Date(wallNow - (monotonicNow - m.seenAt)).toISOString();
    return { text: `${id}, its lease last seen changing at ${seenAt}`, fields: { member: id, leaseLastChangedSeenAt: seenAt, quietMs: Math.round(m.quietMs) } };
  });
}

function sameView(view: readonly string[] | undefined, adopted: Assignment): boolean {
  return view !== undefined && [...new Set(view)].sort().join(',') === adopted.id;
}

/** `next` keeps every member of `prior`: it can only take instances away from each of them. */
function addsOnly(prior: Assignment | undefined, next: Assignment): boolean {
  if (prior === undefined) return true;
  const after = new Set(next.members);
  return prior.members.every((m) => after.has(m));
}

/** `next` is `prior` less some members (so every instance `prior` gave a member left in `next` stays with it). */
function dropsOnly(prior: Assignment | undefined, next: Assignment): boolean {
  if (prior === undefined) return false;
  const before = new Set(prior.members);
  return next.members.every((m) => before.has(m));
}

function claimsUnder(me: string, adopted: Assignment | undefined, releasing: Assignment | undefined, id: string): boolean {
  if (adopted === undefined || adopted.ownerOf(id) !== me) return false;
  return releasing === undefined || releasing.ownerOf(id) === me;
}

function mayActUnder(me: string, adopted: Assignment | undefined, releasing: Assignment | undefined, others: readonly Other[] | undefined, id: string): boolean {
  if (others === undefined || !claimsUnder(me, adopted, releasing, id)) return false;
  return others.every((o) => o.view.ownerOf(id) !== o.id);
}
