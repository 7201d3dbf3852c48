import { defineConfig } from 'vitest/config';
import { E2E_ONLY_FILES, ISOLATED_FILES } from './test/suites.js';

const NOT_HERE = ['test/reliability/**', 'test/e2e/**', 'node_modules/**', ...E2E_ONLY_FILES];

export default defineConfig({
  test: {
    // The reliability suite runs on its own: `npm run test:reliability` (vitest.reliability.config.ts).
    // The slowest end-to-end files (test/e2e/ and test/suites.ts) run with `npm run test:e2e` (vitest.e2e.config.ts).
    // Timeouts catch a hang, they do not measure speed (that is bench/'s job): on a shared, loaded
    // machine an agent scenario of several git and cluster round trips can take a minute of wall time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores: end-to-end files start servers and kubectl processes; keep parallelism modest (4 was slower).
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_HERE, ...ISOLATED_FILES],
          // Files share a worker's module graph: src/ is imported and transformed once per worker,
          // not once per file (test/render measured 76 s of CPU isolated, 40 s shared). Safe because
          // no file here mocks modules, fakes timers or changes process.env; those are ISOLATED_FILES.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: [...ISOLATED_FILES], exclude: NOT_HERE },
      },
    ],
  },
});
