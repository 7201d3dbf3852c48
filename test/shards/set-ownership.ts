/** Ownership a test sets by hand, for deterministic handovers between shard members without Leases. */
import type { InstanceOwnership, OwnershipSnapshot } from '../../src/sync/ownership.js';

/** Which instances the member claims by its view, and which it may act on (by default the same). */
export class SetOwnership implements InstanceOwnership {
  version = 0;
  private claimed = new Set<string>();
  private acting = new Set<string>();
  set(claims: readonly string[], acts: readonly string[] = claims): void {
    this.claimed = new Set(claims);
    this.acting = new Set(acts);
    this.version += 1;
  }
  mayAct(id: string): boolean {
    return this.acting.has(id);
  }
  snapshot(): OwnershipSnapshot {
    const { version, claimed, acting } = this;
    return { version, claims: (id) => claimed.has(id), mayAct: (id) => acting.has(id) };
  }
}
