/**
 * @module test/e2e/support/build-console
 * Builds the console into `console/dist` once per change (test/support/build-lock.ts). The gateway
 * serves `console/dist` when it exists.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOnce, filesUnder } from '../../support/build-lock.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const consoleRoot = path.join(root, 'console');

const sources = () => [
  ...filesUnder(path.join(consoleRoot, 'src')).filter((file) => !file.endsWith('.spec.ts')),
  path.join(consoleRoot, 'index.html'),
  path.join(consoleRoot, 'vite.config.ts'),
  path.join(consoleRoot, 'vite-precompress.ts'),
  path.join(root, 'contracts', 'console-api.ts'),
  path.join(root, 'contracts', 'console-api-sign-in.ts'),
];

/** Builds `console/dist` unless it is up to date with the sources; returns whether it built. */
export function buildConsole(): Promise<boolean> {
  return buildOnce(
    path.join(consoleRoot, '.build-lock'),
    path.join(consoleRoot, 'dist', '.build-stamp'),
    sources,
    async () => {
      const { build } = await import('vite');
      await build({ configFile: path.join(consoleRoot, 'vite.config.ts'), logLevel: 'warn' });
    },
  );
}
