/**
 * A push turn on a short-lived Lease (`coordination.k8s.io/v1`, beside the member Leases): its holder
 * is the member pushing now, the `baton.dev/push-queue` annotation lists the members waiting (oldest
 * first) and `baton.dev/push-tip` the branch tip the last holder pushed. A holder that is done hands the
 * turn to the first member waiting (writing it as the holder), so the order is first come, first served
 * and a member waits at most for the members ahead of it, one push each.
 *
 * Bounds. A holder renews the Lease every third of `holdMs` while it pushes. A holder killed while
 * holding (or a waiting member killed after the turn was handed to it) stops renewing: the others,
 * who read the Lease every `pollMs` while they wait, count it gone once they have seen the same holder
 * and renew time for `holdMs` by their own clock (so clock skew between replicas does not matter), and
 * the first of them hands the turn on. A holder or a waiting member that is not a live member any
 * more (its member Lease released or expired, `live`) is skipped at once. Every write carries the
 * Lease's resourceVersion: two members racing to change it conflict, and the loser reads it again.
 */
import { errorMessage } from '../../errors.js';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { isRecord, type KubeObject } from '../../kube/object.js';
import { formatMicroTime } from '../leader.js';
import type { HeldTurn, PushTurn } from './index.js';

export const PUSH_QUEUE_ANNOTATION = 'baton.dev/push-queue';
export const PUSH_TIP_ANNOTATION = 'baton.dev/push-tip';

/** The push turn Lease of a shard set. */
export const pushTurnLeaseName = (shardSet: string): string => `baton-push-${shardSet}`;

export interface LeasePushTurnOptions {
  client: KubeClient;
  namespace: string;
  /** The Lease's name (pushTurnLeaseName). */
  name: string;
  /** This member's id, as the queue lists it. */
  memberId: string;
  /** How long a holder that stopped renewing keeps the turn (default 5000 ms): the bound a killed holder costs the others. */
  holdMs?: number;
  /** How often a waiting member reads the Lease (default 150 ms). */
  pollMs?: number;
  /** The live members' ids (ShardMember.members); undefined: every member named counts as live. */
  live?: () => readonly string[] | undefined;
  /** Labels of a Lease this member creates. */
  labels?: Record<string, string>;
  /** Monotonic milliseconds, for telling a holder gone (default performance.now). */
  now?: () => number;
  /** Wall-clock milliseconds written as the renew time (default Date.now). */
  wallNow?: () => number;
  /** Resolves after `ms`, or early when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  log?: (level: 'info' | 'warn', message: string) => void;
}

interface TurnState {
  holder: string | undefined;
  queue: string[];
  tip: string | undefined;
  renewTime: string;
}

const isStatus = (err: unknown, ...statuses: number[]): boolean => err instanceof KubeApiError && statuses.includes(err.status);

const realSleep = (ms: number, signal?: AbortSignal): Promise<void> => new Promise((resolve) => {
  const timer = setTimeout(done, ms);
  function done(): void {
    clearTimeout(timer);
    signal?.removeEventListener('abort', done);
    resolve();
  }
  signal?.addEventListener('abort', done, { once: true });
});

function stateOf(lease: KubeObject): TurnState {
  const spec = isRecord(lease.spec) ? lease.spec : {};
  const annotations = lease.metadata.annotations ?? {};
  const holder = typeof spec.holderIdentity === 'string' && spec.holderIdentity !== '' ? spec.holderIdentity : undefined;
  const queue = (annotations[PUSH_QUEUE_ANNOTATION] ?? '').split(',').filter((id) => id !== '');
  const tip = annotations[PUSH_TIP_ANNOTATION] || undefined;
  return { holder, queue, tip, renewTime: typeof spec.renewTime === 'string' ? spec.renewTime : '' };
}

export class LeasePushTurn implements PushTurn {
  private readonly holdMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly wallNow: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The holder and renew time last read, and when (monotonic) they were first seen so. */
  private seen: { key: string; at: number } | undefined;
  /** The renewal of the turn this member holds. */
  private renewTimer: NodeJS.Timeout | undefined;
  /** One write of this member at a time (a renewal and a release both write). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LeasePushTurnOptions) {
    this.holdMs = options.holdMs ?? 5000;
    this.pollMs = options.pollMs ?? 150;
    this.now = options.now ?? (() => performance.now());
    this.wallNow = options.wallNow ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  async take(signal?: AbortSignal): Promise<HeldTurn> {
    const me = this.options.memberId;
    for (;;) {
      signal?.throwIfAborted();
      const lease = await this.read();
      if (lease === undefined) {
        const created = await this.create();
        if (created) return this.held(undefined);
        continue;
      }
      const s = stateOf(lease);
      const queue = this.waiting(s);
      if (s.holder === me || this.isFree(s)) {
        // The turn is mine (handed to me), or free: the first member waiting takes it (me when none waits before me).
        const next = s.holder === me ? me : queue[0] ?? me;
        const rest = queue.filter((id) => id !== next);
        const written = await this.write(lease, { ...s, holder: next, queue: next === me ? rest : [...rest.filter((id) => id !== me), me] });
        if (written && next === me) return this.held(s.tip);
        if (written) continue; // handed on for a holder that is gone, to the member ahead of me
      } else if (!queue.includes(me)) {
        if (!(await this.write(lease, { ...s, queue: [...queue, me] }))) continue;
      }
      await this.sleep(this.pollMs, signal);
    }
  }

  async leave(): Promise<void> {
    this.stopRenewing();
    const me = this.options.memberId;
    try {
      await this.change((s) => {
        if (s.holder !== me && !s.queue.includes(me)) return undefined;
        const queue = this.waiting(s).filter((id) => id !== me);
        return { ...s, ...(s.holder === me ? { holder: queue[0], queue: queue.slice(1) } : { holder: s.holder, queue }) };
      });
    } catch (err) {
      this.options.log?.('warn', `leaving the push turn ${this.options.namespace}/${this.options.name} failed (a turn handed to this member expires on its own): ${errorMessage(err)}`);
    }
  }

  /**
   * Reads the turn and writes what `next` makes of it, again (at most 5 times) when another member wrote
   * in between; `next` answering `undefined` (nothing for this member to change) writes nothing.
   */
  private async change(next: (s: TurnState) => TurnState | undefined): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const lease = await this.read();
      if (lease === undefined) return;
      const changed = next(stateOf(lease));
      if (changed === undefined || (await this.write(lease, changed))) return;
    }
  }

  /** The members waiting, in order, without the holder, duplicates and members that are not live. */
  private waiting(s: TurnState): string[] {
    const live = this.options.live?.();
    const me = this.options.memberId;
    return [...new Set(s.queue)].filter((id) => id !== s.holder && (id === me || live === undefined || live.includes(id)));
  }

  /** Nobody holds the turn, its holder is not a live member, or it has not renewed for `holdMs` (by this member's clock). */
  private isFree(s: TurnState): boolean {
    if (s.holder === undefined) return true;
    const live = this.options.live?.();
    if (live !== undefined && !live.includes(s.holder)) return true;
    const key = `${s.holder}|${s.renewTime}`;
    const now = this.now();
    if (this.seen?.key !== key) this.seen = { key, at: now };
    return now - this.seen.at >= this.holdMs;
  }

  private held(tip: string | undefined): HeldTurn {
    this.stopRenewing();
    this.renewTimer = setInterval(() => { void this.renew(); }, Math.max(1, Math.floor(this.holdMs / 3)));
    this.renewTimer.unref();
    let released = false;
    return {
      tip,
      release: async (pushed) => {
        if (released) return;
        released = true;
        this.stopRenewing();
        await this.handOn(pushed);
      },
    };
  }

  private stopRenewing(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  /** Writes a new renew time while this member holds the turn (a long push). Never throws. */
  private async renew(): Promise<void> {
    try {
      const lease = await this.read();
      if (lease === undefined || stateOf(lease).holder !== this.options.memberId) return;
      await this.write(lease, stateOf(lease));
    } catch {
      // A renewal that failed: the next one tries again; a holder counted gone costs one rejected push.
    }
  }

  /** Gives the turn to the first member waiting (or to nobody), recording the tip this holder pushed. Never throws. */
  private async handOn(pushed: string | undefined): Promise<void> {
    const me = this.options.memberId;
    try {
      await this.change((s) => {
        if (s.holder !== me) return undefined; // counted gone meanwhile: the turn moved on without this member
        const queue = this.waiting(s);
        return { ...s, holder: queue[0], queue: queue.slice(1), tip: pushed ?? s.tip };
      });
    } catch (err) {
      this.options.log?.('warn', `handing on the push turn ${this.options.namespace}/${this.options.name} failed (it expires on its own): ${errorMessage(err)}`);
    }
  }

  private ref(): { apiVersion: string; kind: string; name: string; namespace: string } {
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: this.options.name, namespace: this.options.namespace };
  }

  private read(): Promise<KubeObject | undefined> {
    return this.options.client.get(this.ref());
  }

  private spec(s: TurnState): Record<string, unknown> {
    const now = formatMicroTime(this.wallNow());
    return { ...(s.holder !== undefined ? { holderIdentity: s.holder } : {}), leaseDurationSeconds: Math.max(1, Math.ceil(this.holdMs / 1000)), renewTime: now };
  }

  private annotations(s: TurnState): Record<string, string> {
    return { [PUSH_QUEUE_ANNOTATION]: s.queue.join(','), ...(s.tip !== undefined ? { [PUSH_TIP_ANNOTATION]: s.tip } : {}) };
  }

  /** Creates the Lease with this member as the holder; false when another member created it first. */
  private async create(): Promise<boolean> {
    const state: TurnState = { holder: this.options.memberId, queue: [], tip: undefined, renewTime: '' };
    const obj: KubeObject = {
      ...this.ref(),
      metadata: { name: this.options.name, namespace: this.options.namespace, labels: { 'app.kubernetes.io/managed-by': 'baton', ...this.options.labels }, annotations: this.annotations(state) },
      spec: this.spec(state),
    };
    try {
      await this.options.client.create(obj);
      return true;
    } catch (err) {
      if (isStatus(err, 409)) return false;
      throw err;
    }
  }

  /** Writes `s` over the version of the Lease read; false when it changed meanwhile (or is gone). */
  private write(lease: KubeObject, s: TurnState): Promise<boolean> {
    const run = this.chain.then(async () => {
      const spec = isRecord(lease.spec) ? lease.spec : {};
      const { holderIdentity: _old, ...rest } = spec;
      try {
        await this.options.client.update({
          ...lease,
          metadata: { ...lease.metadata, annotations: { ...(lease.metadata.annotations ?? {}), [PUSH_TIP_ANNOTATION]: '', ...this.annotations(s) } },
          spec: { ...rest, ...this.spec(s) },
        });
        return true;
      } catch (err) {
        if (isStatus(err, 404, 409)) return false;
        throw err;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
