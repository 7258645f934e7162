import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/**/*.spec.ts',
      'contracts/**/*.spec.ts',
      'gateway/**/*.spec.ts',
      'projector/**/*.spec.ts',
      'stores/**/*.spec.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Integration suites bind real ports and temp SQLite files; forks keep native modules isolated.
    pool: 'forks',
  },
});
