/**
 * The object store's memo of parsed trees is bounded by entries: every status commit writes directory
 * trees as large as a namespace folder, so a bound on the number of trees let an agent's memory grow
 * with its status commits (hundreds of MiB at 10,000 instances). The least recently used go first.
 */
import { describe, expect, it } from 'vitest';
import { ObjectStore, TREE_MEMO_ENTRIES } from '../../src/git/tree.js';

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
