import { describe, expect, it } from 'vitest';
import { Assignment, rendezvousOwner } from '../../src/shards/index.js';

const keys = Array.from({ length: 2000 }, (_, i) => `ns-${i % 13}/app-${i}`);
const owners = (members: string[]): Map<string, string | undefined> => new Map(keys.map((k) => [k, rendezvousOwner(k, members)]));

describe('rendezvous assignment', () => {
  it('GIVEN four members WHEN 2,000 instances are assigned THEN each gets a fair share (within 20% of a quarter)', () => {
    const counts = new Map<string, number>();
    for (const o of owners(['a', 'b', 'c', 'd']).values()) counts.set(o ?? '', (counts.get(o ?? '') ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
    for (const n of counts.values()) expect(Math.abs(n - 500)).toBeLessThan(100);
  });

  it('GIVEN three members WHEN a fourth joins THEN only instances moving to the newcomer change hands', () => {
    const before = owners(['a', 'b', 'c']);
    const after = owners(['a', 'b', 'c', 'd']);
    const moved = keys.filter((k) => before.get(k) !== after.get(k));
    expect(moved.every((k) => after.get(k) === 'd')).toBe(true);
    expect(moved.length).toBeGreaterThan(keys.length / 4 - 100);
    expect(moved.length).toBeLessThan(keys.length / 4 + 100);
  });

  it('GIVEN four members WHEN one leaves THEN only its instances move, spread over the others', () => {
    const before = owners(['a', 'b', 'c', 'd']);
    const after = owners(['a', 'b', 'd']);
    const moved = keys.filter((k) => before.get(k) !== after.get(k));
    expect(moved.every((k) => before.get(k) === 'c')).toBe(true);
    expect(moved.length).toBe(keys.filter((k) => before.get(k) === 'c').length);
    expect(new Set(moved.map((k) => after.get(k)))).toEqual(new Set(['a', 'b', 'd']));
  });

  it('GIVEN the members in any order THEN the owner is the same; no members: no owner', () => {
    const a = new Assignment(['c', 'a', 'b']);
    const b = new Assignment(['b', 'c', 'a', 'a']);
    expect(a.id).toBe('a,b,c');
    for (const k of keys.slice(0, 100)) expect(a.ownerOf(k)).toBe(b.ownerOf(k));
    expect(rendezvousOwner('x/y', [])).toBeUndefined();
  });
});
