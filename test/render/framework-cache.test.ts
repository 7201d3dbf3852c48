/**
 * Issue 20: FrameworkCache loads a framework version once per folder tree id. GIVEN a tree whose
 * framework folder id is its content WHEN the same version is asked for again THEN it is not read
 * again; WHEN its files change THEN the new content is loaded (never stale); the cache holds at most
 * its bound; a tree without ids is read every time. Instance renders use the cache their caller hands
 * them (the agent's one): there is no module-wide cache shared by every caller in the process.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrameworkCache } from '../../src/render/framework-cache.js';
import { loadInstanceFramework } from '../../src/render/instance-render.js';
import { loadInstance } from '../../src/render/repository.js';
import { MemoryTree, type FileTree, type TreeEntry } from '../../src/render/tree.js';
import { webFramework } from '../sync/fixtures.js';

/** A MemoryTree whose folder ids hash the folder's files (as a Git tree id does) and which counts reads. */
class CountingTree implements FileTree {
  reads = 0;
  constructor(readonly files: Record<string, string>) {}
  /** The folder's content hash, like a Git tree id. */
  id(path: string): Promise<string | undefined> {
    const inside = Object.keys(this.files).filter((f) => f.startsWith(`${path}/`)).sort();
    return Promise.resolve(inside.length === 0 ? undefined : createHash('sha1').update(inside.map((f) => `${f}\0${this.files[f]}`).join('\n')).digest('hex'));
  }
  private get tree(): MemoryTree {
    return new MemoryTree(this.files);
  }
  read(path: string): Promise<Uint8Array | undefined> {
    this.reads++;
    return this.tree.read(path);
  }
  list(dir: string): Promise<TreeEntry[]> {
    return this.tree.list(dir);
  }
}

/** The same tree as a working directory would be: no content ids. */
function withoutIds(tree: CountingTree): FileTree & { reads: number } {
  return { get reads() { return tree.reads; }, read: (p) => tree.read(p), list: (d) => tree.list(d) };
}

describe('FrameworkCache', () => {
  it('GIVEN a version loaded once WHEN asked again THEN nothing is read again', async () => {
    const tree = new CountingTree(webFramework());
    const cache = new FrameworkCache();
    const first = await cache.load(tree, 'web', '1.0.0');
    const reads = tree.reads;
    expect(first.ok).toBe(true);
    expect(reads).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) expect(await cache.load(tree, 'web', '1.0.0')).toBe(first);
    expect(tree.reads).toBe(reads);
    expect(cache.loads).toBe(1);
  });

  it('GIVEN a cached version WHEN its files change THEN the new content is loaded, not the cached one', async () => {
    const files = webFramework('1.0.0', 'recovery: { permanentTimeout: 5m, permanent: replace }');
    const tree = new CountingTree(webFramework());
    const cache = new FrameworkCache();
    const before = await cache.load(tree, 'web', '1.0.0');
    expect(before.ok && before.value.decl.recovery).toBeUndefined();
    Object.assign(tree.files, files);
    const after = await cache.load(tree, 'web', '1.0.0');
    expect(after.ok && after.value.decl.recovery?.permanent).toBe('replace');
    expect(cache.loads).toBe(2);
  });

  it('GIVEN more versions than its bound WHEN loaded THEN it keeps the bound, dropping the least recently used', async () => {
    const files: Record<string, string> = {};
    for (let v = 0; v < 5; v++) Object.assign(files, webFramework(`1.0.${v}`));
    const tree = new CountingTree(files);
    const cache = new FrameworkCache(3);
    for (let v = 0; v < 5; v++) await cache.load(tree, 'web', `1.0.${v}`);
    expect(cache.size).toBe(3);
    await cache.load(tree, 'web', '1.0.4');
    expect(cache.loads).toBe(5);
    await cache.load(tree, 'web', '1.0.0');
    expect(cache.loads).toBe(6);
  });

  it('GIVEN a tree without ids or a missing version THEN it is read every time (nothing to key it by)', async () => {
    const tree = withoutIds(new CountingTree(webFramework()));
    const cache = new FrameworkCache();
    await cache.load(tree, 'web', '1.0.0');
    await cache.load(tree, 'web', '1.0.0');
    expect(cache.loads).toBe(2);
    expect(cache.size).toBe(0);
    const missing = await cache.load(new CountingTree(webFramework()), 'web', '9.9.9');
    expect(missing.ok).toBe(false);
  });
});

describe('the framework of instance renders (issue #20)', () => {
  const files = { ...webFramework('3.1.4'), 'instances/shop/a.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 3.1.4\n', 'instances/shop/b.yaml': 'apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 3.1.4\n' };
  /** A tree with content ids that records every path read. */
  function recording(initial: Record<string, string>): { tree: CountingTree; counting: FileTree; frameworkReads: () => number } {
    const tree = new CountingTree({ ...initial });
    const reads: string[] = [];
    const counting: FileTree = { id: (p) => tree.id(p), list: (d) => tree.list(d), read: (p) => { reads.push(p); return tree.read(p); } };
    return { tree, counting, frameworkReads: () => reads.filter((p) => p.endsWith('/framework.yaml')).length };
  }
  async function loadBoth(counting: FileTree, cache?: FrameworkCache): Promise<void> {
    for (const file of ['instances/shop/a.yaml', 'instances/shop/b.yaml']) {
      const inst = await loadInstance(counting, file);
      expect(inst.ok).toBe(true);
      const fw = inst.ok ? await loadInstanceFramework(counting, inst.value, cache) : undefined;
      expect(fw?.ok && fw.value.version).toBe('3.1.4');
    }
  }

  it('GIVEN instances of one framework version and the caller\'s cache WHEN each is rendered again and again THEN framework.yaml is read and parsed once, not at every render', async () => {
    const { tree, counting, frameworkReads } = recording(files);
    const cache = new FrameworkCache();
    for (let round = 0; round < 3; round++) await loadBoth(counting, cache);
    expect(frameworkReads()).toBe(1);
    expect(cache.loads).toBe(1);
    // Changed files are a new tree id: loaded again, never stale.
    Object.assign(tree.files, webFramework('3.1.4', 'recovery: { permanent: replace }\n'));
    const inst = await loadInstance(counting, 'instances/shop/a.yaml');
    const fw = inst.ok ? await loadInstanceFramework(counting, inst.value, cache) : undefined;
    expect(fw?.ok && fw.value.decl.recovery?.permanent).toBe('replace');
    expect(frameworkReads()).toBe(2);
  });

  it('GIVEN no module-wide cache WHEN two callers load the same version with caches of their own THEN neither is served from the other\'s; without a cache it is loaded every time', async () => {
    const { counting, frameworkReads } = recording(files);
    const first = new FrameworkCache();
    const second = new FrameworkCache();
    await loadBoth(counting, first);
    await loadBoth(counting, second);
    expect([first.loads, second.loads]).toEqual([1, 1]);
    expect(frameworkReads()).toBe(2);
    // A caller that hands no cache (a one-shot command) shares nobody's: read at every load.
    await loadBoth(counting);
    await loadBoth(counting);
    expect(frameworkReads()).toBe(6);
    expect([first.loads, second.loads]).toEqual([1, 1]);
  });
});
