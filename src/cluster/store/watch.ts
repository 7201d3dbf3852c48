/**
 * Watch fan-out and the bounded event window. Every committed write gets the next value of the one
 * global resourceVersion counter and lands in a ring; a watch resumes from any version still in the
 * ring and gets 410 Gone (reason Expired) for an older one, as a real server after compaction.
 *
 * Selector semantics follow the real server: an object that starts matching arrives as ADDED, one that
 * stops matching as DELETED.
 */
import type { KubeObject } from '../../kube/object.js';
import { gone } from './errors.js';
import type { Matcher } from './selectors.js';
import type { StoreWatchEvent } from './types.js';

export interface StoredEvent {
  rv: number;
  /** Storage key: `group/resource`. */
  key: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  /** The previous state, for MODIFIED (selector transitions). */
  old?: KubeObject;
}

export interface Watcher {
  key: string;
  namespace: string | undefined;
  matches: Matcher;
  /** Converts a stored object to the watched version (apiVersion). */
  present: (obj: KubeObject) => KubeObject;
  emit: (ev: StoreWatchEvent) => void;
  bookmark: (() => void) | undefined;
}

export class WatchHub {
  private readonly ring: (StoredEvent | undefined)[];
  private head = 0;
  private size = 0;
  /** The highest resourceVersion dropped from the ring: resuming from below it is 410 Gone. */
  private droppedUpTo = 0;
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(capacity: number) {
    this.ring = new Array<StoredEvent | undefined>(Math.max(1, capacity));
  }

  /** Called after startup replay so that versions from before the restart are all "too old". */
  markCompactedAt(rv: number): void {
    this.droppedUpTo = Math.max(this.droppedUpTo, rv);
  }

  publish(ev: StoredEvent): void {
    const cap = this.ring.length;
    if (this.size === cap) {
      const oldest = this.ring[this.head];
      if (oldest) this.droppedUpTo = oldest.rv;
      this.ring[this.head] = ev;
      this.head = (this.head + 1) % cap;
    } else {
      this.ring[(this.head + this.size) % cap] = ev;
      this.size++;
    }
    for (const w of this.watchers.get(ev.key) ?? []) deliver(w, ev);
  }

  /** Throws 410 Gone when events after `fromRv` have been dropped; else replays them to `w`. */
  replay(w: Watcher, fromRv: number): void {
    if (fromRv < this.droppedUpTo) {
      throw gone(`too old resource version: ${fromRv} (${this.droppedUpTo + 1})`);
    }
    const cap = this.ring.length;
    for (let i = this.firstAfter(fromRv); i < this.size; i++) {
      const ev = this.ring[(this.head + i) % cap];
      if (ev && ev.key === w.key) deliver(w, ev);
    }
  }

  /**
   * The ring position (0 = oldest) of the first event newer than `rv`, by binary search: versions grow
   * along the ring. A watch usually resumes from the version of the list just before it, so a replay
   * looks at the few events since, not at the whole window (10,000 events by default) every time.
   */
  private firstAfter(rv: number): number {
    const cap = this.ring.length;
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ring[(this.head + mid) % cap]?.rv ?? 0) > rv) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  add(w: Watcher): () => void {
    let set = this.watchers.get(w.key);
    if (!set) this.watchers.set(w.key, (set = new Set()));
    set.add(w);
    return () => {
      set.delete(w);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const s of this.watchers.values()) n += s.size;
    return n;
  }
}

function deliver(w: Watcher, ev: StoredEvent): void {
  if (w.namespace !== undefined && ev.object.metadata.namespace !== w.namespace) return;
  const now = w.matches(ev.object);
  let type: StoreWatchEvent['type'] | undefined;
  if (ev.type === 'MODIFIED' && ev.old) {
    const before = w.matches(ev.old);
    type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
  } else if (now) {
    type = ev.type;
  }
  if (type === undefined) return;
  try {
    w.emit({ type, object: w.present(ev.object) });
  } catch {
    // A broken consumer (closed socket) must not fail the write; the HTTP layer stops it.
  }
}
