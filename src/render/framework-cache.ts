/**
 * Loaded framework versions kept by the Git tree id of their folder (issue #20). A long-running reader
 * (the agent's pod pass, requests decided beside a running plan) asks for the framework of every
 * instance at every poll; loading reads and parses framework.yaml, params.yaml and every template, so
 * at 1,000 instances that was most of an agent's CPU. The tree id is content-addressed: a changed
 * framework has another id and is loaded again, never served stale. A loaded framework is the same for
 * every instance of that version and holds no instance's data, so sharing it leaks nothing; callers
 * must not change it. One cache per agent, at most FRAMEWORK_CACHE_ENTRIES versions (LRU).
 */
import type { Framework, Loaded } from './model.js';
import { frameworkDir, loadFramework } from './repository.js';
import { PromiseLru } from './promise-lru.js';
import type { FileTree } from './tree.js';

/** Framework versions kept at most (a repository holds few; the bound keeps a long-lived agent's memory flat). */
export const FRAMEWORK_CACHE_ENTRIES = 32;

export class FrameworkCache {
  /** Loads by `name/version@treeId`. */
  private readonly entries: PromiseLru<Loaded<Framework>>;
  private loadCount = 0;

  constructor(maxEntries = FRAMEWORK_CACHE_ENTRIES) {
    this.entries = new PromiseLru(maxEntries);
  }

  /** Framework versions loaded from the tree so far (not answered from the cache). */
  get loads(): number {
    return this.loadCount;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The framework version as `loadFramework` loads it. `treeId` is its folder's Git tree id when the
   * caller already has it (the scan's fingerprint); otherwise the tree is asked. A tree without ids
   * (a working directory) or a missing folder is loaded every time.
   */
  async load(tree: FileTree, name: string, version: string, treeId?: string): Promise<Loaded<Framework>> {
    const id = treeId ?? (await tree.id?.(frameworkDir(name, version)));
    if (id === undefined) {
      this.loadCount++;
      return loadFramework(tree, name, version);
    }
    const { value, loaded } = this.entries.get(`${name}/${version}@${id}`, () => loadFramework(tree, name, version));
    if (loaded) this.loadCount++;
    return value;
  }
}
