/** The stored form of an instance's values (what the checkpoint keeps as last applied) and change detection. */
import { describe, expect, it } from 'vitest';
import { changedKeys, storeValues } from '../../src/plans/values.js';

describe('stored values', () => {
  it('keeps values as canonical JSON, whatever the key order of objects', () => {
    expect(storeValues({ B: { y: 1, x: [2, 'a'] }, A: 'v' }, new Set())).toEqual({ A: '"v"', B: '{"x":[2,"a"],"y":1}' });
  });

  it('keeps a sensitive value only as a SHA-256', () => {
    const stored = storeValues({ PASSWORD: 'hunter2-secret' }, new Set(['PASSWORD']));
    expect(stored.PASSWORD).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain('hunter2');
  });

  it('stores an optional parameter without a value (null) as absent, so older checkpoints do not look changed', () => {
    expect(storeValues({ OPT: null, A: 1 }, new Set())).toEqual({ A: '1' });
    expect(changedKeys({ A: '1' }, storeValues({ OPT: null, A: 1 }, new Set()))).toEqual([]);
  });

  it.each([
    ['a value set where there was none', { A: '1' }, { A: '1', OPT: '"x"' }, ['OPT']],
    ['a value unset', { A: '1', OPT: '"x"' }, { A: '1' }, ['OPT']],
    ['a value changed', { A: '1' }, { A: '2' }, ['A']],
    ['nothing changed', { A: '1' }, { A: '1' }, []],
  ])('change detection: %s', (_name, previous, desired, changed) => {
    expect(changedKeys(previous, desired)).toEqual(changed);
  });
});
