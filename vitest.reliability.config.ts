/**
 * `npm run test:reliability`: the reliability suite (test/reliability/), apart from `npm test`.
 * Kills, paused leaders, pushes under contention and API fault profiles, each suite printing one
 * `RELIABILITY {"suite",...,"tries","clean","defects"}` line; the table of all of them is printed at
 * the end (globalSetup). The script builds dist/ first: agent processes run the built CLI, which
 * starts in a fraction of tsx's time. Files run one at a time: they time kills and pauses.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
    globalSetup: ['test/reliability/summary.ts'],
    env: { BATON_TEST_BUILT_CLI: '1' },
    reporters: ['default'],
  },
});
