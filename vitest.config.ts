import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Only the console's .vue files need it; every other suite is plain TypeScript.
  plugins: [vue()],
  test: {
    include: [
      'test/**/*.spec.ts',
      'contracts/**/*.spec.ts',
      'gateway/**/*.spec.ts',
      'projector/**/*.spec.ts',
      'stores/**/*.spec.ts',
      // Console unit tests pick happy-dom with a `// @vitest-environment happy-dom` comment.
      'console/src/**/*.unit.spec.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Integration suites bind real ports and temp SQLite files; forks keep native modules isolated.
    pool: 'forks',
  },
});
