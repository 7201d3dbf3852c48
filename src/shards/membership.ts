/**
 * The members of a shard set as one member sees them, from the member Leases in the lease namespace.
 * Liveness follows client-go: a lease is live while its record (resourceVersion) was seen to change
 * recently by this member's own monotonic clock. Renew times written by other machines are never
 * compared with the local clock, so clock skew between replicas changes nothing.
 *
 * "Recently" is the lease duration less a grace (`graceMs`, the shard member's retry period): a record
 * is first seen up to one look after it was written, so counting the full lease duration from that
 * sight put the expiry past the lease duration from the renewal (and a takeover past it from the
 * kill). Counting less is safe because the member stopped writing at its renew deadline after it
 * sent that renewal (its fence), and the shard member requires renew deadline + grace < duration.
 *
 * A list answer proves a record unchanged only up to when the server answered, which is no earlier
 * than when the list was sent: quiet time is counted up to the send time, while a new record counts
 * from when its answer arrived. A member whose event loop was busy handles an answer late; counting
 * up to that moment would call a member gone that renewed after the server answered.
 */
import { isRecord, type KubeObject } from '../kube/object.js';
import { CONFIG_ANNOTATION, CONFIG_HASH_ANNOTATION, MEMBER_ID_ANNOTATION, VIEW_ANNOTATION } from './member-lease.js';

export interface Member {
  id: string;
  leaseName: string;
  identity: string;
  configHash: string;
  configText: string;
  /** The member set it acts under (published in its lease); undefined until it published one. */
  view: string[] | undefined;
  live: boolean;
  /** Local milliseconds since its record last changed. */
  quietMs: number;
  /** Its record changed while this member watched (it is renewing, not merely not yet expired). */
  renewing: boolean;
  /** Local monotonic ms at which its current record was first seen (its last renewal as far as this member knows). */
  seenAt: number;
  /** Local monotonic ms at which it stops counting as live unless its record changes again. */
  expiresAt: number;
  resourceVersion: string;
}

export class MembershipObserver {
  /** Per lease name: the record last seen and when it was first seen (local monotonic ms). */
  private readonly seen = new Map<string, { rv: string; at: number; changed: boolean }>();

  /**
   * @param defaultDurationMs for a lease that states no duration
   * @param graceMs a record seen unchanged for its lease duration less this is gone (see above)
   */
  constructor(private readonly defaultDurationMs: number, private readonly graceMs = 0) {}

  /**
   * @param now when the answer arrived (local monotonic ms)
   * @param sentAt when the list was sent (default `now`)
   */
  observe(leases: readonly KubeObject[], now: number, sentAt: number = now): Member[] {
    const out: Member[] = [];
    const names = new Set<string>();
    for (const lease of leases) {
      const name = lease.metadata.name ?? '';
      names.add(name);
      const rv = lease.metadata.resourceVersion ?? '';
      const prior = this.seen.get(name);
      if (prior?.rv !== rv) this.seen.set(name, { rv, at: now, changed: prior !== undefined });
      const at = this.seen.get(name)?.at ?? now;
      const renewing = this.seen.get(name)?.changed === true;
      const spec = isRecord(lease.spec) ? lease.spec : {};
      const annotations = lease.metadata.annotations ?? {};
      const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
      const durationMs = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : this.defaultDurationMs;
      const liveForMs = Math.max(durationMs - this.graceMs, 0);
      const view = annotations[VIEW_ANNOTATION];
      out.push({
        id: annotations[MEMBER_ID_ANNOTATION] ?? name, leaseName: name, identity: holder,
        configHash: annotations[CONFIG_HASH_ANNOTATION] ?? '', configText: annotations[CONFIG_ANNOTATION] ?? '',
        view: view === undefined ? undefined : view.split(',').filter((v) => v !== ''),
        live: holder !== '' && sentAt - at < liveForMs, quietMs: Math.max(0, sentAt - at), renewing: renewing && holder !== '' && sentAt - at < liveForMs, resourceVersion: rv,
        seenAt: at, expiresAt: at + liveForMs,
      });
    }
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    return out;
  }
}

