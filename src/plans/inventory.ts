/**
 * The inventory: every object an instance's plans applied, with the plan that last applied it.
 * A value with `diff()`, as Flux keeps it: pruning deletes only inventory entries (never by label
 * selector alone), and an entry whose delete failed stays for the next attempt.
 */
import { refKey, type ObjectRef } from '../kube/object.js';

export interface InventoryEntry extends ObjectRef {
  /** The plan that last applied the object; pruning after a plan only considers its own family. */
  plan: string;
}

/** deploy, update and upgrade render the instance's whole lifecycle state: one pruning family. */
const LIFECYCLE = new Set(['deploy', 'update', 'upgrade']);

export function samePruneFamily(a: string, b: string): boolean {
  return a === b || (LIFECYCLE.has(a) && LIFECYCLE.has(b));
}

export class Inventory {
  private readonly byKey: ReadonlyMap<string, InventoryEntry>;

  private constructor(entries: Iterable<InventoryEntry>) {
    this.byKey = new Map([...entries].map((e) => [refKey(e), e]));
  }

  static of(entries: readonly InventoryEntry[] = []): Inventory {
    return new Inventory(entries);
  }

  get entries(): InventoryEntry[] {
    return [...this.byKey.values()].sort((a, b) => (refKey(a) < refKey(b) ? -1 : 1));
  }

  get size(): number {
    return this.byKey.size;
  }

  has(ref: ObjectRef): boolean {
    return this.byKey.has(refKey(ref));
  }

  /** Records objects as applied by `plan` (a re-apply moves the entry to the newer plan). */
  with(refs: readonly ObjectRef[], plan: string): Inventory {
    const next = new Map(this.byKey);
    for (const r of refs) next.set(refKey(r), { ...plainRef(r), plan });
    return new Inventory(next.values());
  }

  without(refs: readonly ObjectRef[]): Inventory {
    const drop = new Set(refs.map(refKey));
    return new Inventory([...this.byKey.values()].filter((e) => !drop.has(refKey(e))));
  }

  /**
   * Entries of `plan`'s pruning family that the instance no longer renders (`rendered`), i.e. the
   * objects to prune after `plan` completed.
   */
  diff(rendered: readonly ObjectRef[], plan: string): InventoryEntry[] {
    const keep = new Set(rendered.map(refKey));
    return this.entries.filter((e) => samePruneFamily(e.plan, plan) && !keep.has(refKey(e)));
  }
}

function plainRef(r: ObjectRef): ObjectRef {
  const out: ObjectRef = { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
  if (r.namespace !== undefined) out.namespace = r.namespace;
  return out;
}
