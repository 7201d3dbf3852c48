/**
 * Loaded instance files kept by path and Git blob id (issue #20). A plan run renders its instance
 * several times (the plan, each lifecycle plan for the inventory, the drift check's renders), and every
 * render read and parsed the instance file again: YAML parsing was the largest part of what an agent
 * allocated at 1,000 instances (about 40% of 207 MiB in the 4 s burst at the end of a run), garbage
 * that raised its peak RSS. The blob id is content-addressed, so a changed file is loaded again, never
 * served stale; the path is part of the key because the namespace and name come from it. A load is the
 * same for every caller and callers must not change it. Renders of one instance come close together,
 * so a few entries serve them; the bound keeps the memory flat whatever the repository's size.
 */
import type { Instance, Loaded } from './model.js';
import { loadInstance } from './repository.js';
import { normalizeTreePath, type FileTree } from './tree.js';

/** Instance files kept at most (least recently used dropped): about the renders in flight at once. */
export const INSTANCE_CACHE_ENTRIES = 64;

export class InstanceCache {
  private readonly entries = new Map<string, Promise<Loaded<Instance>>>();
  private loadCount = 0;

  constructor(private readonly maxEntries = INSTANCE_CACHE_ENTRIES) {}

  /** Instance files loaded from a tree so far (not answered from the cache). */
  get loads(): number {
    return this.loadCount;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The instance file as `loadInstance` loads it; a tree without ids (a working directory) loads every time. */
  async load(tree: FileTree, path: string): Promise<Loaded<Instance>> {
    let key: string | undefined;
    try {
      const file = normalizeTreePath(path);
      const id = await tree.id?.(file);
      key = id === undefined ? undefined : `${file}@${id}`;
    } catch {
      key = undefined;
    }
    if (key === undefined) {
      this.loadCount++;
      return loadInstance(tree, path);
    }
    const known = this.entries.get(key);
    if (known !== undefined) {
      // Most recently used now: moved to the end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    this.loadCount++;
    const loading = loadInstance(tree, path);
    this.entries.set(key, loading);
    // A read that failed is tried again next time (a file with problems is content, and kept).
    const kept = key;
    void loading.catch(() => {
      if (this.entries.get(kept) === loading) this.entries.delete(kept);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
    return loading;
  }
}
