/**
 * Leader election on a `coordination.k8s.io/v1` Lease, so only one agent per repository and branch
 * acts on a cluster. Follows client-go's leaderelection: try to acquire or renew every retry period;
 * optimistic concurrency through resourceVersion (a 409 means another agent won the race); a lease
 * may be taken once it has expired; a leader that cannot renew within the renew deadline (shorter
 * than the lease duration) steps down before anyone else may take over; a graceful stop releases
 * the lease (empty holder) so a waiting agent takes over at its next retry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BatonError, errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import { LeaseFence } from '../fencing/index.js';
import { currentProcess, livenessOf, pidNamespace } from '../process-liveness.js';

export const DEFAULT_LEASE_NAMESPACE = 'baton-system';

export interface LeaderClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or early when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface LeaderOptions {
  client: KubeClient;
  /** Lease name (see `leaseNameFor`). */
  name: string;
  namespace?: string;
  /** Who holds the lease (see `defaultIdentity`). */
  identity?: string;
  /** Default 15 s. */
  leaseDurationMs?: number;
  /** A leader that has not renewed for this long steps down. Default 10 s; must be < lease duration. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  clock?: LeaderClock;
  /**
   * Renewed with every successful write of the lease and lost on stepping down (see fencing/): the
   * agent's writes check it. runAsLeader makes one when none is given.
   */
  fence?: LeaseFence;
  /**
   * Asked before each renewal: a reason to step down instead (the renewer thread's main thread stopped
   * checking in, see shards/lease-renewer/), or undefined to renew.
   */
  mayRenew?: () => string | undefined;
  /**
   * Who acquires, renews and releases the lease: by default a LeaderElector in this thread; the agent
   * gives one that renews from a thread of its own (shards/lease-renewer/), whose fence is `fence`.
   */
  elector?: Pick<LeaderElector, 'acquire' | 'keepRenewing' | 'release'>;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export class LeaderElectionError extends BatonError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('AGENT_LEADER_ELECTION', message, context);
  }
}

export const realClock: LeaderClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => new Promise((resolve) => {
    if (signal?.aborted) { resolve(); return; }
    const done = (): void => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  }),
};

/** `baton-agent-<12 hex>`: one lease per repository URL and branch. */
export function leaseNameFor(repo: string, branch: string): string {
  return `baton-agent-${createHash('sha256').update(`${repo}#${branch}`).digest('hex').slice(0, 12)}`;
}

/** hostname + pid namespace + pid + random suffix, unique even for two agents in one process. */
export function defaultIdentity(): string {
  return `${hostname()}_${pidNamespace()}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/**
 * True when `holder` is an identity from this host and pid namespace whose process no longer exists
 * (an agent killed and restarted on the same machine): its lease can be taken at once instead of
 * after the lease duration.
 */
export function holderIsDeadLocalProcess(holder: string): boolean {
  const m = /^(.*)_(\d+)_(\d+)_[0-9a-f]{8}$/.exec(holder);
  if (!m) return false;
  const self = currentProcess();
  // The identity names no boot or start time: only a pid that is gone proves death.
  if (Number(m[3]) === self.pid) return false;
  return livenessOf({ host: m[1] ?? '', boot: '', pidNamespace: m[2] ?? '0', pid: Number(m[3]) }, self) === 'dead';
}

/** Kubernetes MicroTime: RFC 3339 in UTC with exactly 6 fractional digits. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function parseMicroTime(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** The Lease spec fields Baton reads, type-checked (anything else written by others is kept as is). */
function specOf(lease: KubeObject): LeaseSpec & Record<string, unknown> {
  const raw = isRecord(lease.spec) ? lease.spec : {};
  const out: LeaseSpec & Record<string, unknown> = { ...raw };
  for (const k of ['holderIdentity', 'acquireTime', 'renewTime'] as const) if (typeof raw[k] !== 'string') delete out[k];
  for (const k of ['leaseDurationSeconds', 'leaseTransitions'] as const) if (typeof raw[k] !== 'number') delete out[k];
  return out;
}

const isConflict = (err: unknown): boolean => err instanceof KubeApiError && (err.status === 409 || err.reason === 'Conflict' || err.reason === 'AlreadyExists');

export class LeaderElector {
  readonly identity: string;
  readonly name: string;
  readonly namespace: string;
  private readonly client: KubeClient;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly clock: LeaderClock;
  private readonly log: NonNullable<LeaderOptions['log']>;
  private readonly fence: LeaseFence | undefined;
  private readonly mayRenew: (() => string | undefined) | undefined;
  /** The last lease record seen and when (local clock) it last changed: client-go's observedTime. */
  private observed: { key: string; at: number } | undefined;
  private leading = false;
  /** The last attempt found a live lease held by another agent (not merely a lost write race). */
  private observedHolderIsOther = false;

  constructor(options: LeaderOptions) {
    this.client = options.client;
    this.name = options.name;
    this.namespace = options.namespace ?? DEFAULT_LEASE_NAMESPACE;
    this.identity = options.identity ?? defaultIdentity();
    this.leaseMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryMs = options.retryPeriodMs ?? 2_000;
    this.clock = options.clock ?? realClock;
    this.log = options.log ?? (() => undefined);
    this.fence = options.fence;
    this.mayRenew = options.mayRenew;
    if (!(this.renewDeadlineMs < this.leaseMs)) {
      throw new LeaderElectionError(`renew deadline (${this.renewDeadlineMs} ms) must be shorter than the lease duration (${this.leaseMs} ms)`);
    }
    if (this.leaseMs < 1000) throw new LeaderElectionError(`lease duration must be at least 1s, got ${this.leaseMs} ms`);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * One attempt (client-go's tryAcquireOrRenew): true when this elector holds the lease afterwards.
   * Losing a race (409) or finding a live lease held by someone else is `false`, not an error.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    // When the request leaves, by the fence's monotonic clock: a renewal counts from then.
    const sentAt = this.fence?.now() ?? 0;
    this.observedHolderIsOther = false;
    const ref = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: this.name, namespace: this.namespace };
    const current = await this.client.get(ref);
    const seconds = Math.ceil(this.leaseMs / 1000);
    if (current === undefined) {
      await this.ensureNamespace();
      const lease: KubeObject = {
        ...ref, metadata: { name: this.name, namespace: this.namespace, labels: { 'app.kubernetes.io/managed-by': 'baton' } },
        spec: { holderIdentity: this.identity, leaseDurationSeconds: seconds, acquireTime: formatMicroTime(now), renewTime: formatMicroTime(now), leaseTransitions: 0 },
      };
      return this.write(() => this.client.create(lease), now, sentAt);
    }
    const spec = specOf(current);
    const key = `${current.metadata.resourceVersion ?? ''}`;
    // A new record counts from when its answer arrived (a late answer must not make it expire early);
    // expiry is judged as of `now`, before the read was sent.
    if (this.observed?.key !== key) this.observed = { key, at: this.clock.now() };
    const holder = spec.holderIdentity ?? '';
    const mine = holder === this.identity;
    if (!mine && holder !== '' && !this.expired(spec, now) && !holderIsDeadLocalProcess(holder)) {
      this.observedHolderIsOther = true;
      return false;
    }
    const next: LeaseSpec = {
      ...spec, holderIdentity: this.identity, leaseDurationSeconds: seconds, renewTime: formatMicroTime(now),
      ...(mine ? {} : { acquireTime: formatMicroTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
    };
    return this.write(() => this.client.update({ ...current, spec: next }), now, sentAt);
  }

  /** Retries every retry period until this elector leads (true) or the signal aborts (false). */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    let waitingLogged = false;
    while (signal?.aborted !== true) {
      try {
        if (await this.tryAcquireOrRenew()) {
          this.log('info', `became leader of lease ${this.namespace}/${this.name}`, { identity: this.identity });
          return true;
        }
        if (!waitingLogged) this.log('info', `lease ${this.namespace}/${this.name} is held by another agent; waiting`, { identity: this.identity });
        waitingLogged = true;
      } catch (err) {
        this.log('warn', `leader election: ${errorMessage(err)}`);
      }
      await this.clock.sleep(this.retryMs, signal);
    }
    return false;
  }

  /**
   * Renews every retry period while leading; resolves 'lost' once no renewal succeeded for the renew
   * deadline (or another agent holds the lease), 'stopped' when the signal aborts.
   */
  async keepRenewing(signal: AbortSignal): Promise<'lost' | 'stopped'> {
    let lastRenew = this.clock.now();
    const paused = 'the renew deadline passed without a renewal (the process may have been paused)';
    while (!signal.aborted) {
      await this.clock.sleep(this.retryMs, signal);
      if (signal.aborted) break;
      // Past the fence's deadline nothing may be written, not even the lease: step down at once.
      if (this.fenceLost()) return this.stepDown(paused);
      const stop = this.mayRenew?.();
      if (stop !== undefined) return this.stepDown(stop);
      try {
        if (await this.tryAcquireOrRenew()) {
          lastRenew = this.clock.now();
          if (this.fenceLost()) return this.stepDown(paused);
          continue;
        }
        if (this.observedHolderIsOther) return this.stepDown('another agent holds the lease');
      } catch (err) {
        this.log('warn', `lease renewal failed: ${errorMessage(err)}`);
      }
      if (this.clock.now() - lastRenew >= this.renewDeadlineMs) return this.stepDown(`no renewal for ${this.renewDeadlineMs} ms`);
    }
    return 'stopped';
  }

  /** Gives the lease up (empty holder) when this elector holds it; never throws. */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    try {
      const current = await this.client.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: this.name, namespace: this.namespace });
      if (current === undefined || specOf(current).holderIdentity !== this.identity) return;
      const now = formatMicroTime(this.clock.now());
      await this.client.update({ ...current, spec: { ...specOf(current), holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } });
      this.log('info', `released lease ${this.namespace}/${this.name}`);
    } catch (err) {
      this.log('warn', `releasing lease ${this.namespace}/${this.name} failed (it expires on its own): ${errorMessage(err)}`);
    }
  }

  /**
   * Expired when the record did not change for a lease duration by our own clock (immune to skew,
   * as client-go) or its renewTime is a lease duration in the past (so a restarted agent need not
   * wait a full duration for a long-dead holder; assumes clocks roughly in sync).
   */
  private expired(spec: LeaseSpec, now: number): boolean {
    const duration = (spec.leaseDurationSeconds ?? Math.ceil(this.leaseMs / 1000)) * 1000;
    const renewed = parseMicroTime(spec.renewTime);
    if (renewed !== undefined && renewed + duration < now) return true;
    return this.observed !== undefined && this.observed.at + duration <= now;
  }

  private async write(op: () => Promise<KubeObject>, now: number, sentAt: number): Promise<boolean> {
    try {
      const written = await op();
      this.observed = { key: `${written.metadata.resourceVersion ?? ''}`, at: now };
      this.leading = true;
      // The term: leaseTransitions, which grows with every change of holder.
      this.fence?.renewed(sentAt, specOf(written).leaseTransitions ?? 0);
      this.observedHolderIsOther = false;
      return true;
    } catch (err) {
      // Someone wrote the lease between our read and write: this attempt failed, retry later.
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** A method, so the compiler does not assume the fence unchanged across awaits. */
  private fenceLost(): boolean {
    return this.fence?.isLost === true;
  }

  private stepDown(why: string): 'lost' {
    this.leading = false;
    this.fence?.lose(why);
    this.log('error', `lost lease ${this.namespace}/${this.name}: ${why}`, { identity: this.identity });
    return 'lost';
  }

  private async ensureNamespace(): Promise<void> {
    const ns = await this.client.get({ apiVersion: 'v1', kind: 'Namespace', name: this.namespace });
    if (ns !== undefined) return;
    try {
      await this.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.namespace } });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
}

export type LeaderResult = { kind: 'completed' } | { kind: 'lost' } | { kind: 'aborted' };

/**
 * Waits to lead, then runs `work` with a signal that aborts when leadership is lost (the elector steps
 * down, or a fenced write finds the renew deadline passed) or `signal` aborts, and with the fence its
 * writes must check; releases the lease when the work ends, unless it was lost. The work should stop
 * promptly on abort: a lost leader must stop acting before the lease expires (renew deadline < lease
 * duration), and the fence refuses its writes from the deadline on.
 */
export async function runAsLeader(options: LeaderOptions, work: (signal: AbortSignal, fence: LeaseFence) => Promise<void>, signal?: AbortSignal): Promise<LeaderResult> {
  const fence = options.fence ?? new LeaseFence({ renewDeadlineMs: options.renewDeadlineMs ?? 10_000 });
  const elector = options.elector ?? new LeaderElector({ ...options, fence });
  if (!(await elector.acquire(signal))) return { kind: 'aborted' };
  const workAbort = new AbortController();
  const renewAbort = new AbortController();
  const onOuterAbort = (): void => workAbort.abort();
  signal?.addEventListener('abort', onOuterAbort);
  let lost = false;
  fence.onLost(() => { lost = true; workAbort.abort(); });
  const renewing = elector.keepRenewing(renewAbort.signal).then((r) => { if (r === 'lost') { lost = true; workAbort.abort(); } });
  try {
    await work(workAbort.signal, fence);
  } finally {
    signal?.removeEventListener('abort', onOuterAbort);
    renewAbort.abort();
    await renewing;
    if (!lost && !fence.isLost) await elector.release();
  }
  return lost || fence.isLost ? { kind: 'lost' } : signal?.aborted ? { kind: 'aborted' } : { kind: 'completed' };
}
