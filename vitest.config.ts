import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite runs on its own: `npm run test:reliability` (vitest.reliability.config.ts).
    // The slow end-to-end files (*.e2e.test.ts) run with `npm run test:e2e` (vitest.e2e.config.ts).
    exclude: ['test/reliability/**', 'test/**/*.e2e.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end files start servers and kubectl processes; keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
