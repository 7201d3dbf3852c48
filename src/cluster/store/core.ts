/**
 * The store's state: objects indexed by storage key (`group/resource`), namespace and name; a uid
 * index for garbage collection; the one global resourceVersion counter; the watch hub; the journal.
 * `commit` is the only place an object changes, so versions, events and persistence stay in step.
 */
import type { KubeObject } from '../../kube/object.js';
import type { Journal } from './persist.js';
import { ResourceRegistry } from './registry.js';
import type { ResourceType, StoreOptions } from './types.js';
import { apiVersionOf } from './types.js';
import { WatchHub } from './watch.js';

export type Bucket = Map<string, KubeObject>;
export type Collection = Map<string, Bucket>;

export interface Location {
  key: string;
  namespace: string;
  name: string;
}

export function storageKey(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return `${type.group}/${type.resource}`;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

export class Core {
  readonly registry = new ResourceRegistry();
  readonly hub: WatchHub;
  readonly collections = new Map<string, Collection>();
  readonly byUid = new Map<string, Location>();
  /** owner uid -> dependent uids, from ownerReferences: garbage collection without scans. */
  readonly dependents = new Map<string, Set<string>>();
  rv = 0;
  /** Garbage-collection work: uids whose owner vanished or whose deletion may now complete. */
  readonly gcQueue: { kind: 'ownerGone' | 'finalize'; uid: string }[] = [];
  gcRunning = false;
  journal: Journal | undefined;
  /** Called after every committed change, in order (admission's quota bookkeeping, namespace content). */
  readonly afterCommit: ((key: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject) => void)[] = [];

  constructor(readonly options: StoreOptions) {
    this.hub = new WatchHub(options.watchWindow ?? 10_000);
  }

  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** RFC 3339 with second precision, as metadata timestamps are. */
  timestamp(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  collection(key: string): Collection {
    let c = this.collections.get(key);
    if (!c) this.collections.set(key, (c = new Map<string, Bucket>()));
    return c;
  }

  find(key: string, namespace: string, name: string): KubeObject | undefined {
    return this.collections.get(key)?.get(namespace)?.get(name);
  }

  byUidLookup(uid: string): KubeObject | undefined {
    const loc = this.byUid.get(uid);
    return loc ? this.find(loc.key, loc.namespace, loc.name) : undefined;
  }

  /**
   * Every object of a collection (optionally one namespace; with `name`, only objects of that name),
   * in namespace then name order.
   */
  scan(key: string, namespace: string | undefined, name?: string): KubeObject[] {
    const c = this.collections.get(key);
    if (!c) return [];
    const buckets = namespace !== undefined ? [c.get(namespace)].filter((b): b is Bucket => b !== undefined) : [...c.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
    const out: KubeObject[] = [];
    for (const b of buckets) {
      if (name !== undefined) {
        const obj = b.get(name);
        if (obj) out.push(obj);
        continue;
      }
      const names = [...b.keys()].sort();
      for (const n of names) out.push(b.get(n) as KubeObject);
    }
    return out;
  }

  /** Converts a stored object to the version a request used (all versions share storage, conversion None). */
  present(obj: KubeObject, type: ResourceType): KubeObject {
    const av = apiVersionOf(type);
    return obj.apiVersion === av ? obj : { ...obj, apiVersion: av };
  }

  /**
   * Stores `obj` (or removes it for DELETED) under the next resourceVersion, publishes the event and
   * journals it. Returns the stored object.
   */
  commit(key: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject, old?: KubeObject): KubeObject {
    const rv = ++this.rv;
    const stored: KubeObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    if (this.options.freeze) deepFreeze(stored);
    const ns = stored.metadata.namespace ?? '';
    const name = stored.metadata.name ?? '';
    const c = this.collection(key);
    const previous = c.get(ns)?.get(name);
    if (previous) this.unindexOwners(previous);
    if (type === 'DELETED') {
      const b = c.get(ns);
      b?.delete(name);
      if (b && b.size === 0) c.delete(ns);
      if (stored.metadata.uid) this.byUid.delete(stored.metadata.uid);
    } else {
      let b = c.get(ns);
      if (!b) c.set(ns, (b = new Map<string, KubeObject>()));
      b.set(name, stored);
      if (stored.metadata.uid) this.byUid.set(stored.metadata.uid, { key, namespace: ns, name });
      this.indexOwners(stored);
    }
    this.journal?.append({ rv, key, type, object: stored });
    const ev = { rv, key, type, object: stored };
    this.hub.publish(old && type === 'MODIFIED' ? { ...ev, old } : ev);
    for (const hook of this.afterCommit) hook(key, type, stored);
    return stored;
  }

  /** Loads an object during recovery: no event, no journal. */
  restore(key: string, obj: KubeObject): void {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const c = this.collection(key);
    let b = c.get(ns);
    if (!b) c.set(ns, (b = new Map<string, KubeObject>()));
    if (this.options.freeze) deepFreeze(obj);
    b.set(name, obj);
    if (obj.metadata.uid) this.byUid.set(obj.metadata.uid, { key, namespace: ns, name });
    this.indexOwners(obj);
  }

  dependentsOf(uid: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const d of this.dependents.get(uid) ?? []) {
      const o = this.byUidLookup(d);
      if (o) out.push(o);
    }
    return out;
  }

  private indexOwners(obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    for (const ref of obj.metadata.ownerReferences ?? []) {
      let set = this.dependents.get(ref.uid);
      if (!set) this.dependents.set(ref.uid, (set = new Set()));
      set.add(uid);
    }
  }

  private unindexOwners(obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const set = this.dependents.get(ref.uid);
      set?.delete(uid);
      if (set?.size === 0) this.dependents.delete(ref.uid);
    }
  }

}
