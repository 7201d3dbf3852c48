/**
 * The bounded, least-recently-used map of loads behind the framework and instance caches: keyed by
 * content (a Git tree or blob id), so an entry is never stale; concurrent callers of one key share one
 * load; a load that fails is dropped so the next caller tries again (a file with problems is content,
 * and a load that reports problems resolves, so it is kept).
 */
export class PromiseLru<T> {
  /** Loads by key, least recently used first (Map order). */
  private readonly entries = new Map<string, Promise<T>>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The load kept under `key`, or `load()` started now and kept (the oldest entries beyond the bound dropped). */
  get(key: string, load: () => Promise<T>): { value: Promise<T>; loaded: boolean } {
    const known = this.entries.get(key);
    if (known !== undefined) {
      // Most recently used now: moved to the end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, known);
      return { value: known, loaded: false };
    }
    const loading = load();
    this.entries.set(key, loading);
    void loading.catch(() => {
      if (this.entries.get(key) === loading) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
    return { value: loading, loaded: true };
  }
}
