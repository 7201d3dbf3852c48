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
import { PromiseLru } from './promise-lru.js';
import { normalizeTreePath, type FileTree } from './tree.js';

/** Instance files kept at most (least recently used dropped): about the renders in flight at once. */
export const INSTANCE_CACHE_ENTRIES = 64;

export class InstanceCache {
  private readonly entries: PromiseLru<Loaded<Instance>>;
  private loadCount = 0;

  constructor(maxEntries = INSTANCE_CACHE_ENTRIES) {
    this.entries = new PromiseLru(maxEntries);
  }

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
    const { value, loaded } = this.entries.get(key, () => loadInstance(tree, path));
    if (loaded) this.loadCount++;
    return value;
  }
}
