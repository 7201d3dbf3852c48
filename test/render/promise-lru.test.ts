import { describe, expect, it } from 'vitest';
import { PromiseLru } from '../../src/render/promise-lru.js';

describe('PromiseLru', () => {
  it('GIVEN one key asked twice WHEN the first load is still under way THEN both callers share that one load', async () => {
    const lru = new PromiseLru<number>(2);
    let loads = 0;
    const load = async (): Promise<number> => ++loads;
    const a = lru.get('k', load);
    const b = lru.get('k', load);
    expect([a.loaded, b.loaded]).toEqual([true, false]);
    expect(await Promise.all([a.value, b.value])).toEqual([1, 1]);
    expect(loads).toBe(1);
  });

  it('GIVEN more keys than the bound WHEN one was used recently THEN the least recently used one is dropped and loaded again', async () => {
    const lru = new PromiseLru<string>(2);
    const load = (k: string) => async (): Promise<string> => k;
    lru.get('a', load('a'));
    lru.get('b', load('b'));
    lru.get('a', load('a')); // a is now the most recently used
    lru.get('c', load('c')); // drops b
    expect(lru.size).toBe(2);
    expect(lru.get('a', load('a')).loaded).toBe(false);
    expect(lru.get('b', load('b')).loaded).toBe(true);
  });

  it('GIVEN a load that fails WHEN the key is asked again THEN it is loaded again (failures are not kept)', async () => {
    const lru = new PromiseLru<number>(2);
    const failed = lru.get('k', async () => {
      throw new Error('read failed');
    });
    await expect(failed.value).rejects.toThrow('read failed');
    const again = lru.get('k', async () => 7);
    expect(again.loaded).toBe(true);
    expect(await again.value).toBe(7);
  });
});
