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
import type { FileTree } from './tree.js';

/** Framework versions kept at most (a repository holds few; the bound keeps a long-lived agent's memory flat). */
export const FRAMEWORK_CACHE_ENTRIES = 32;

export class FrameworkCache {
  /** Loads by `name/version@treeId`, least recently used first (Map order); concurrent callers share one load. */
  private readonly entries = new Map<string, Promise<Loaded<Framework>>>();
  private loadCount = 0;

  constructor(private readonly maxEntries = FRAMEWORK_CACHE_ENTRIES) {}

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
    const key = `${name}/${version}@${id}`;
    const known = this.entries.get(key);
    if (known !== undefined) {
      // Most recently used now: moved to the end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    this.loadCount++;
    const loading = loadFramework(tree, name, version);
    this.entries.set(key, loading);
    // A read that failed (not a framework with problems, which is content too) is tried again next time.
    void loading.catch(() => {
      if (this.entries.get(key) === loading) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
    return loading;
  }
}
