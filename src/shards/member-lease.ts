/**
 * A shard member's own Lease (`coordination.k8s.io/v1`) in the lease namespace: it exists while the
 * member runs, is renewed every retry period, and carries what the other members must know about it:
 * the hash of its repository configuration and the member set (view) it currently acts under. Every
 * successful write renews the member's fence (see fencing/); a lease found gone or taken means the
 * others may have declared this member dead, so the fence is lost at once.
 */
import { createHash } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { isRecord, type KubeObject } from '../kube/object.js';
import type { LeaseFence } from '../fencing/index.js';
import { formatMicroTime, type LeaderClock } from '../sync/leader.js';

export const SHARD_SET_LABEL = 'baton.dev/shard-set';
export const CONFIG_HASH_ANNOTATION = 'baton.dev/config-hash';
export const CONFIG_ANNOTATION = 'baton.dev/config';
export const VIEW_ANNOTATION = 'baton.dev/view';
export const MEMBER_ID_ANNOTATION = 'baton.dev/member';

/** A short stable id of a member identity (what views list). */
export const memberIdOf = (identity: string): string => createHash('sha256').update(identity).digest('hex').slice(0, 10);

export const memberLeaseName = (shardSet: string, memberId: string): string => `baton-member-${shardSet}-${memberId}`;

export interface MemberLeaseOptions {
  client: KubeClient;
  namespace: string;
  shardSet: string;
  identity: string;
  /** Hash of the repository, branch and status branch: members must agree on it. */
  configHash: string;
  /** A readable form of the configuration (branch names; never credentials). */
  configText: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  fence: LeaseFence;
  /** Wall-clock milliseconds, for the renew time written in the lease. */
  now: () => number;
  sleep: LeaderClock['sleep'];
  /** See RenewLoopOptions.mayRenew. */
  mayRenew?: () => string | undefined;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** What a shard member does with its lease: in this thread (MemberLease) or through a renewer thread (lease-renewer/). */
export interface MemberLeaseHandle {
  readonly memberId: string;
  readonly name: string;
  /** Renews the lease now, publishing `view` when given. */
  renew(view?: readonly string[]): Promise<void>;
  /** Deletes the lease (a graceful stop); never throws. */
  release(): Promise<void>;
  /** Renews every retry period until the signal aborts or the fence is lost (see keepMemberLeaseRenewed). */
  keepRenewing(signal: AbortSignal): Promise<void>;
}

const isStatus = (err: unknown, status: number): boolean => err instanceof KubeApiError && err.status === status;

export class MemberLease implements MemberLeaseHandle {
  readonly memberId: string;
  readonly name: string;
  /** The last version of the lease this member wrote. */
  private written: KubeObject | undefined;
  private view: readonly string[] | undefined;
  /** One write at a time (the renew loop and a view change both write). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: MemberLeaseOptions) {
    this.memberId = memberIdOf(options.identity);
    this.name = memberLeaseName(options.shardSet, this.memberId);
  }

  get creationTimestamp(): string {
    return this.written?.metadata.creationTimestamp ?? '';
  }

  /** Renews the lease, publishing `view` when given (the member set this member acts under from now). */
  renew(view?: readonly string[]): Promise<void> {
    const run = this.chain.then(() => this.write(view));
    this.chain = run.catch(() => undefined);
    return run;
  }

  keepRenewing(signal: AbortSignal): Promise<void> {
    const { fence, retryPeriodMs, renewDeadlineMs, sleep, log, mayRenew } = this.options;
    return keepMemberLeaseRenewed({ lease: this, fence, retryPeriodMs, renewDeadlineMs, sleep, monotonic: fence.now, log, ...(mayRenew ? { mayRenew } : {}) }, signal);
  }

  /** Deletes the lease (a graceful stop): the others take this member's instances at their next look. Never throws. */
  async release(): Promise<void> {
    await this.chain;
    if (this.written === undefined) return;
    try {
      await this.options.client.delete(this.ref(), { preconditions: { uid: this.written.metadata.uid ?? '' } });
      this.options.log('info', `released member lease ${this.options.namespace}/${this.name}`);
    } catch (err) {
      this.options.log('warn', `releasing member lease ${this.options.namespace}/${this.name} failed (it expires on its own): ${errorMessage(err)}`);
    }
    this.written = undefined;
  }

  private ref(): { apiVersion: string; kind: string; name: string; namespace: string } {
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: this.name, namespace: this.options.namespace };
  }

  private async write(view: readonly string[] | undefined): Promise<void> {
    const { client, fence } = this.options;
    if (view !== undefined) this.view = view;
    const sentAt = fence.now();
    const now = formatMicroTime(this.options.now());
    const seconds = Math.ceil(this.options.leaseDurationMs / 1000);
    const annotations = {
      [CONFIG_HASH_ANNOTATION]: this.options.configHash, [CONFIG_ANNOTATION]: this.options.configText, [MEMBER_ID_ANNOTATION]: this.memberId,
      ...(this.view !== undefined ? { [VIEW_ANNOTATION]: this.view.join(',') } : {}),
    };
    if (this.written === undefined) {
      await this.ensureNamespace();
      this.written = await client.create({
        ...this.ref(),
        metadata: { name: this.name, namespace: this.options.namespace, labels: { 'app.kubernetes.io/managed-by': 'baton', [SHARD_SET_LABEL]: this.options.shardSet }, annotations },
        spec: { holderIdentity: this.options.identity, leaseDurationSeconds: seconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      });
      fence.renewed(sentAt, 0);
      return;
    }
    const last = this.written;
    const spec = isRecord(last.spec) ? last.spec : {};
    try {
      this.written = await client.update({ ...last, metadata: { ...last.metadata, annotations: { ...(last.metadata.annotations ?? {}), ...annotations } }, spec: { ...spec, renewTime: now, leaseDurationSeconds: seconds } });
      fence.renewed(sentAt, 0);
    } catch (err) {
      // Gone, or changed by someone else: the others may think this member dead. Stop acting at once.
      if (isStatus(err, 404) || isStatus(err, 409)) {
        fence.lose(`member lease ${this.options.namespace}/${this.name} was ${isStatus(err, 404) ? 'deleted' : 'changed by someone else'}`);
      }
      throw err;
    }
  }

  private async ensureNamespace(): Promise<void> {
    const { client, namespace } = this.options;
    if ((await client.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) !== undefined) return;
    try {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
    }
  }
}

export interface RenewLoopOptions {
  lease: Pick<MemberLease, 'renew'>;
  fence: LeaseFence;
  retryPeriodMs: number;
  renewDeadlineMs: number;
  sleep: LeaderClock['sleep'];
  monotonic: () => number;
  log: MemberLeaseOptions['log'];
  /**
   * Asked before each renewal: a reason not to renew any more (the renewer thread's main thread stopped
   * checking in), which loses the fence; undefined to renew.
   */
  mayRenew?: () => string | undefined;
}

/** Renews every retry period until the signal aborts or the fence is lost (a loss ends it, never a failed renewal). */
export async function keepMemberLeaseRenewed(o: RenewLoopOptions, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await o.sleep(o.retryPeriodMs, signal);
    if (signal.aborted || o.fence.isLost) return;
    const stop = o.mayRenew?.();
    if (stop !== undefined) {
      o.fence.lose(stop);
      return;
    }
    const started = o.monotonic();
    try {
      await o.lease.renew();
    } catch (err) {
      o.log('warn', `member lease renewal failed: ${errorMessage(err)}`);
    }
    // A slow API server eats into the renew deadline: say so before the fence is lost over it.
    const took = o.monotonic() - started;
    if (took > o.renewDeadlineMs / 2) o.log('warn', `member lease renewal took ${Math.round(took)} ms (renew deadline ${o.renewDeadlineMs} ms)`);
    // The fence expires on its own when no renewal succeeded within the renew deadline.
    if (o.fence.isLost) return;
  }
}
