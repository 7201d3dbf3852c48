import { defineConfig } from 'vitest/config';
import { E2E_ONLY_FILES } from './test/suites.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite runs on its own: `npm run test:reliability` (vitest.reliability.config.ts).
    // The slowest end-to-end files (test/e2e/ and test/suites.ts) run with `npm run test:e2e` (vitest.e2e.config.ts).
    // The shard members as processes (test/shards/agents.test.ts) run with the reliability suite: since
    // plan control, recovery and composition were merged its history check finds defects (docs/scale-out.md).
    exclude: ['test/reliability/**', 'test/e2e/**', 'node_modules/**', 'test/shards/agents.test.ts', ...E2E_ONLY_FILES],
    // Timeouts catch a hang, they do not measure speed (that is bench/'s job): on a shared, loaded
    // machine an agent scenario of several git and cluster round trips can take a minute of wall time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: end-to-end files start servers and kubectl processes; keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
