/**
 * The inventory: every object an instance's plans applied, with the plan that last applied it.
 * A value with `diff()`, as Flux keeps it: pruning deletes only inventory entries (never by label
 * selector alone), and an entry whose delete failed stays for the next attempt.
 *
 * Entries are keyed by object identity (API group, kind, namespace, name), not by the full
 * apiVersion: one object is served under every version of its group, so an upgrade that renders
 * `autoscaling/v2` where `autoscaling/v2beta2` was applied re-applies the same object and must not
 * prune it. A different group is a different object (as in Flux).
 */
import { groupOf, type ObjectRef } from '../kube/object.js';

export interface InventoryEntry extends ObjectRef {
  /** The apiVersion the object was last applied with (the newest, so deletes use a served version). */
  apiVersion: string;
  /** The plan that last applied the object; pruning after a plan only considers its own family. */
  plan: string;
}

/** `group/kind/namespace/name` (group '' for core, namespace '' when cluster-scoped): one live object. */
export function identityKey(ref: ObjectRef): string {
  return [groupOf(ref.apiVersion), ref.kind, ref.namespace ?? '', ref.name].join('/');
}

/** deploy, update and upgrade render the instance's whole lifecycle state: one pruning family. */
const LIFECYCLE = new Set(['deploy', 'update', 'upgrade']);

export function samePruneFamily(a: string, b: string): boolean {
  return a === b || (LIFECYCLE.has(a) && LIFECYCLE.has(b));
}

export class Inventory {
  private readonly byKey: ReadonlyMap<string, InventoryEntry>;

  private constructor(byKey: ReadonlyMap<string, InventoryEntry>) {
    this.byKey = byKey;
  }

  /**
   * Checkpoints written before entries were keyed by identity may hold one object under two
   * apiVersions; they merge into one entry with the higher-priority version (see `preferred`).
   */
  static of(entries: readonly InventoryEntry[] = []): Inventory {
    const byKey = new Map<string, InventoryEntry>();
    for (const e of entries) {
      const key = identityKey(e);
      const seen = byKey.get(key);
      byKey.set(key, seen === undefined ? e : preferred(seen, e));
    }
    return new Inventory(byKey);
  }

  get entries(): InventoryEntry[] {
    return [...this.byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
  }

  get size(): number {
    return this.byKey.size;
  }

  has(ref: ObjectRef): boolean {
    return this.byKey.has(identityKey(ref));
  }

  /** Records objects as applied by `plan` (a re-apply moves the entry to the newer plan and apiVersion). */
  with(refs: readonly ObjectRef[], plan: string): Inventory {
    const next = new Map(this.byKey);
    for (const r of refs) next.set(identityKey(r), { ...plainRef(r), plan });
    return new Inventory(next);
  }

  /** Drops the entries of these objects, whatever apiVersion each is named with. */
  without(refs: readonly ObjectRef[]): Inventory {
    const next = new Map(this.byKey);
    for (const r of refs) next.delete(identityKey(r));
    return new Inventory(next);
  }

  /**
   * Entries of `plan`'s pruning family that the instance no longer renders (`rendered`), i.e. the
   * objects to prune after `plan` completed.
   */
  diff(rendered: readonly ObjectRef[], plan: string): InventoryEntry[] {
    const keep = new Set(rendered.map(identityKey));
    return this.entries.filter((e) => samePruneFamily(e.plan, plan) && !keep.has(identityKey(e)));
  }
}

function plainRef(r: ObjectRef): ObjectRef {
  const out: ObjectRef = { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
  if (r.namespace !== undefined) out.namespace = r.namespace;
  return out;
}

/**
 * Of two legacy entries for one object, the one with the higher Kubernetes version priority (GA over
 * beta over alpha, then the higher number): the order of applies was not recorded, and the newer
 * version is the one a cluster still serves after the older is removed.
 */
function preferred(a: InventoryEntry, b: InventoryEntry): InventoryEntry {
  return versionPriority(b.apiVersion) > versionPriority(a.apiVersion) ? b : a;
}

const STABILITY: Readonly<Record<string, number>> = { alpha: 1, beta: 2, '': 3 };

/** A sortable number for `v2`, `v2beta1`, `v1alpha3`; unknown shapes rank lowest. */
function versionPriority(apiVersion: string): number {
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (m === null) return 0;
  return (STABILITY[m[2] ?? ''] ?? 0) * 1e8 + Number(m[1]) * 1e4 + Number(m[3] ?? 0);
}
