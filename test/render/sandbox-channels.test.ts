/**
 * Issue #11 item 7: nothing of one render is observable from another, through any shared built-in of
 * the sandbox's vm context (legacy RegExp statics, replaced globals, prototypes, the closure every render
 * of a template shares, Error hooks, the Symbol registry...). One test per channel (sandbox-probes.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CHANNEL_PROBES, leaks, runProbe } from './sandbox-probes.js';
import { testRenderer } from './helpers.js';

const renderer = testRenderer();
afterAll(() => renderer.close());

describe('no channel between renders', () => {
  it.each(CHANNEL_PROBES)('$name: another instance renders and sees nothing of the secret', async (probe) => {
    for (const out of await runProbe(renderer, probe)) {
      expect(out.ok, JSON.stringify(out)).toBe(true);
      expect(leaks(out), JSON.stringify(out)).toBe(false);
    }
  });
});
