import { defineConfig } from 'vitest/config';
import { E2E_ONLY_FILES } from './test/suites.js';

/**
 * `npm run test:e2e`: the slow end-to-end cases kept out of `npm test` (the files in test/e2e/ and the
 * slowest end-to-end files listed in test/suites.ts):
 * packing and installing the package, whole-agent runs against real git and the simulated cluster
 * (three shard members as processes sharing one repository: 100 to 350 s with the built CLI at load 12-22),
 * and the kubectl compatibility table for kubectl 1.27 to 1.32 (npm test runs 1.33).
 * .ci/run runs it after `npm test`.
 */
export default defineConfig({
  test: {
    // test/e2e/ plus the kubectl versions older than the newest (npm test runs the newest).
    include: ['test/e2e/**/*.test.ts', 'test/cluster/server/compat.test.ts', ...E2E_ONLY_FILES],
    // Agent processes run the built CLI (the script builds dist/ first): tsx compiling three agents on a loaded machine takes minutes.
    env: { BATON_KUBECTL_VERSIONS: 'older', BATON_TEST_BUILT_CLI: '1' },
    exclude: ['test/reliability/**', 'node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
