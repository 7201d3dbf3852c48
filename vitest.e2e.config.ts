import { defineConfig } from 'vitest/config';

/**
 * `npm run test:e2e`: the slow end-to-end cases kept out of `npm test` (the files in test/e2e/):
 * packing and installing the package, whole-agent runs against real git and the simulated cluster.
 * .ci/run runs it after `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    exclude: ['test/reliability/**', 'node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
