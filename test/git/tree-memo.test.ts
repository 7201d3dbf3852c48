/**
 * The object store's memo of parsed trees is bounded by entries: every status commit writes directory
 * trees as large as a namespace folder, so a bound on the number of trees let an agent's memory grow
 * with its status commits (hundreds of MiB at 10,000 instances). The least recently used go first.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { describe, expect, it, vi } from 'vitest';
import { BLOB_MEMO_BYTES, ObjectStore, TREE_MEMO_ENTRIES } from '../../src/git/tree.js';

const tree = (n: number, size: number): Array<{ mode: string; path: string; oid: string; type: 'blob' }> =>
  Array.from({ length: size }, (_, i) => ({ mode: '100644', path: `app-${i}.yaml`, oid: `${String(n).padStart(8, '0')}${String(i).padStart(32, '0')}`, type: 'blob' }));
const oid = (n: number): string => n.toString(16).padStart(40, '0');

describe('the tree memo', () => {
  it('GIVEN many large trees written WHEN remembered THEN the memo holds at most its bound of entries, the most recently used kept', async () => {
    // A gitdir that does not exist: a tree not in the memo cannot be read at all.
    const store = new ObjectStore('/nonexistent/baton-tree-memo.git');
    const size = 5000;
    const count = Math.ceil((3 * TREE_MEMO_ENTRIES) / size);
    for (let n = 0; n < count; n++) {
      store.rememberTree(oid(n), tree(n, size));
      // The first tree is read again all along: used recently, it stays.
      if (n > 0) expect(await store.readTree(oid(0))).toHaveLength(size);
    }
    expect(store.memoEntries).toBeLessThanOrEqual(TREE_MEMO_ENTRIES);
    expect(store.memoEntries).toBeGreaterThan(TREE_MEMO_ENTRIES - size);
    expect((await store.readTree(oid(count - 1))).map((e) => e.path).slice(0, 2)).toEqual(['app-0.yaml', 'app-1.yaml']);
    expect(await store.readTree(oid(0))).toHaveLength(size);
    await expect(store.readTree(oid(1))).rejects.toThrow();
  });
});

describe('the pack cache', () => {
  it('GIVEN objects read from pack files WHEN fetches add more packs THEN the cache holds only packs read since the last change, not every pack ever read', async () => {
    const work = mkdtempSync(join(tmpdir(), 'baton-pack-cache-'));
    const git = (...args: string[]): string => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'gc.auto=0', ...args], { encoding: 'utf8' }).trim();
    try {
      git('init', '--quiet');
      const store = new ObjectStore(join(work, '.git'));
      // Packs whose whole data the cache holds (isomorphic-git loads a pack's data when an object is read from it).
      const packsHeld = async (): Promise<number> => {
        const cache = store.cache as Record<symbol, unknown>;
        let held = 0;
        for (const s of Object.getOwnPropertySymbols(cache)) {
          for (const index of (cache[s] as Map<string, Promise<{ pack?: unknown }>>).values()) if ((await index).pack) held++;
        }
        return held;
      };
      let most = 0;
      for (let i = 0; i < 6; i++) {
        writeFileSync(join(work, `file-${i}.txt`), `content ${i}\n`);
        git('add', '--all');
        git('commit', '--quiet', '-m', `c${i}`);
        // Each round's new objects go into a pack of their own, as a fetch of more than 100 objects does.
        git('repack', '-d', '-q');
        const tree = await store.at(git('rev-parse', 'HEAD'));
        expect(await tree.readText(`file-${i}.txt`)).toBe(`content ${i}\n`);
        most = Math.max(most, await packsHeld());
      }
      expect(most).toBeLessThanOrEqual(1);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('the blob memo', () => {
  it('GIVEN a framework file read by every run WHEN it is read again THEN it comes from memory; the memo stays within its bound', async () => {
    const work = mkdtempSync(join(tmpdir(), 'baton-blob-memo-'));
    const sh = (...args: string[]): string => execFileSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'gc.auto=0', ...args], { encoding: 'utf8' }).trim();
    try {
      sh('init', '--quiet');
      writeFileSync(join(work, 'framework.yaml'), 'name: small\n');
      // 40 files of 200 KiB: twice the memo's bound.
      for (let i = 0; i < 40; i++) writeFileSync(join(work, `big-${i}.txt`), `${i}`.padEnd(200 * 1024, 'x'));
      sh('add', '--all');
      sh('commit', '--quiet', '-m', 'c');
      const store = new ObjectStore(join(work, '.git'));
      const tree = await store.at(sh('rev-parse', 'HEAD'));
      const reads = vi.spyOn(git, 'readBlob');
      for (let run = 0; run < 5; run++) expect(await tree.readText('framework.yaml')).toBe('name: small\n');
      expect(reads).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 40; i++) expect((await tree.read(`big-${i}.txt`))?.byteLength).toBe(200 * 1024);
      expect(store.memoBlobBytes).toBeLessThanOrEqual(BLOB_MEMO_BYTES);
      expect(store.memoBlobBytes).toBeGreaterThan(BLOB_MEMO_BYTES - 200 * 1024);
      reads.mockRestore();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
