import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

/**
 * The tiers (`npm test` runs them in turn, scripts/test-tiers.mjs):
 * - fast: unit tests and integration tests on the embedded stores, in-process (`npm run test:fast`);
 * - faults: the embedded gateway as a process killed, starved of disk, flooded, disconnected;
 * - browser: the console in Chromium;
 * - cluster: suites that share the real Kafka, ClickHouse and Redis servers. Some stop a server on
 *   purpose (outage tests), so its files run one at a time;
 * - container: the project's image and the compose stack (scripts/images build first; .ci/run);
 * - clients: Claude Code, Codex and the Gemini CLI, and the AI SDK, LangChain JS, pydantic-ai, litellm
 *   and langchain-openai, installed from npm and PyPI into a cache, run against the gateway
 *   (test/clients/, docs/clients.md).
 */
const sharedServerSuites = [
  'test/cluster/**/*.spec.ts',
  'test/faults/cluster-*.spec.ts',
  'test/e2e/console-cluster.e2e.spec.ts',
];
const faultSuites = ['test/faults/**/*.spec.ts'];
const browserSuites = ['test/e2e/**/*.spec.ts'];
const containerSuites = ['test/container/**/*.spec.ts'];
const clientSuites = ['test/clients/**/*.spec.ts'];

const shared = {
  testTimeout: 30_000,
  hookTimeout: 120_000,
  // Integration suites bind real ports and temp SQLite files; forks keep native modules isolated.
  pool: 'forks' as const,
};

export default defineConfig({
  // Only the console's .vue files need it; every other suite is plain TypeScript.
  plugins: [vue()],
  // The console's alias for the shared contracts (console/vite.config.ts), for its unit tests.
  resolve: { alias: { '@contracts': fileURLToPath(new URL('contracts', import.meta.url)) } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: [
            'test/**/*.spec.ts',
            'contracts/**/*.spec.ts',
            'gateway/**/*.spec.ts',
            'platform/**/*.spec.ts',
            'projector/**/*.spec.ts',
            'stores/**/*.spec.ts',
            // Console unit tests pick happy-dom with a `// @vitest-environment happy-dom` comment.
            'console/src/**/*.unit.spec.ts',
          ],
          exclude: [
            '**/node_modules/**',
            ...sharedServerSuites,
            ...faultSuites,
            ...browserSuites,
            ...containerSuites,
            ...clientSuites,
          ],
          ...shared,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: faultSuites,
          globalSetup: ['test/support/bundle-global-setup.ts'],
          exclude: ['**/node_modules/**', ...sharedServerSuites],
          ...shared,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserSuites,
          exclude: ['**/node_modules/**', ...sharedServerSuites],
          ...shared,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: sharedServerSuites,
          fileParallelism: false,
          // Kafka, ClickHouse and Redis through testcontainers where a Docker engine answers (once per run).
          globalSetup: ['test/support/bundle-global-setup.ts', 'test/cluster/cluster-global-setup.ts'],
          ...shared,
        },
      },
      {
        extends: true,
        test: {
          name: 'clients',
          include: clientSuites,
          // Installs the agent CLIs and the SDKs into a cache (npm, a venv), once per run.
          globalSetup: ['test/clients/clients-global-setup.ts'],
          ...shared,
          // A cell is a real client's whole run (start, one or two model turns, a tool); the clients of
          // one channel kind run together, as many as the cells of a kind.
          testTimeout: 120_000,
          hookTimeout: 600_000,
          maxConcurrency: 6,
        },
      },
      {
        extends: true,
        test: { name: 'container', include: containerSuites, fileParallelism: false, ...shared },
      },
    ],
  },
});
