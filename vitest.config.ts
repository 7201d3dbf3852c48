import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end files start servers and kubectl processes; keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
