/**
 * Issue 20: instance files are loaded once per path and blob id for renders. GIVEN a tree whose files
 * have content ids WHEN the same instance file is loaded again THEN it is not read again; WHEN it
 * changes THEN the new content is loaded (never stale); the same content at another path is its own
 * instance; the cache holds at most its bound; a tree without ids is read every time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InstanceCache } from '../../src/render/instance-cache.js';
import { loadInstance } from '../../src/render/repository.js';
import { MemoryTree, type FileTree, type TreeEntry } from '../../src/render/tree.js';

/** A MemoryTree whose files have ids hashing their content (as Git blob ids do) and which counts reads. */
class CountingTree implements FileTree {
  reads = 0;
  constructor(readonly files: Record<string, string>) {}
  id(path: string): Promise<string | undefined> {
    const text = this.files[path];
    return Promise.resolve(text === undefined ? undefined : createHash('sha1').update(text).digest('hex'));
  }
  read(path: string): Promise<Uint8Array | undefined> {
    this.reads++;
    return new MemoryTree(this.files).read(path);
  }
  list(dir: string): Promise<TreeEntry[]> {
    return new MemoryTree(this.files).list(dir);
  }
}

const instance = (value: string): string => `apiVersion: baton.dev/v1alpha1\nkind: Instance\nframework: web\nversion: 1.0.0\nparams:\n  VALUE: "${value}"\n`;

describe('InstanceCache', () => {
  it('GIVEN an instance file loaded once WHEN loaded again THEN it is not read again, and the load is what loadInstance gives', async () => {
    const tree = new CountingTree({ 'instances/prod/a.yaml': instance('1') });
    const cache = new InstanceCache();
    const first = await cache.load(tree, 'instances/prod/a.yaml');
    const direct = await loadInstance(tree, 'instances/prod/a.yaml');
    expect(first.ok && direct.ok && { ...first.value, source: undefined }).toEqual(direct.ok && { ...direct.value, source: undefined });
    const reads = tree.reads;
    for (let i = 0; i < 6; i++) expect(await cache.load(tree, 'instances/prod/a.yaml')).toBe(first);
    expect(tree.reads).toBe(reads);
    expect(cache.loads).toBe(1);
  });

  it('GIVEN a cached instance WHEN its file changes THEN the new content is loaded; the same content at another path is another instance', async () => {
    const tree = new CountingTree({ 'instances/prod/a.yaml': instance('1') });
    const cache = new InstanceCache();
    await cache.load(tree, 'instances/prod/a.yaml');
    tree.files['instances/prod/a.yaml'] = instance('2');
    const changed = await cache.load(tree, 'instances/prod/a.yaml');
    expect(changed.ok && changed.value.decl.params).toEqual({ VALUE: '2' });
    tree.files['instances/staging/a.yaml'] = instance('2');
    const other = await cache.load(tree, 'instances/staging/a.yaml');
    expect(other.ok && other.value.namespace).toBe('staging');
    expect(cache.loads).toBe(3);
  });

  it('GIVEN more instance files than its bound WHEN each is loaded THEN it holds at most the bound', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) files[`instances/prod/a${i}.yaml`] = instance(String(i));
    const tree = new CountingTree(files);
    const cache = new InstanceCache(4);
    for (let i = 0; i < 10; i++) await cache.load(tree, `instances/prod/a${i}.yaml`);
    expect(cache.size).toBe(4);
  });

  it('GIVEN a tree without ids (a working directory) WHEN loaded twice THEN it is read twice', async () => {
    const tree = new CountingTree({ 'instances/prod/a.yaml': instance('1') });
    const plain: FileTree = { read: (p) => tree.read(p), list: (d) => tree.list(d) };
    const cache = new InstanceCache();
    await cache.load(plain, 'instances/prod/a.yaml');
    await cache.load(plain, 'instances/prod/a.yaml');
    expect(tree.reads).toBe(2);
    expect(cache.size).toBe(0);
  });
});
