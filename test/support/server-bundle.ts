/**
 * @module test/support/server-bundle
 * The server bundle that tests start gateways and projectors from, as operators run them: built by
 * scripts/build-server.mjs into `.test-dist/` (a directory of the tests' own, which `npm run gateway`
 * in another test never empties), once per change of the sources. A process started from it is up in
 * well under half the time of one started from TypeScript through tsx.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildOnce, filesUnder } from './build-lock.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUNDLE_DIRECTORY = path.join(root, '.test-dist');

/** The bundle's entry for a source entry: `gateway/main.ts` → `.test-dist/gateway/main.js`. */
export function bundled(entry: string): string {
  return path.join(BUNDLE_DIRECTORY, entry.replace(/\.ts$/, '.js'));
}

const sources = () => [
  ...['gateway', 'contracts', 'stores', 'projector', 'platform'].flatMap((directory) =>
    filesUnder(path.join(root, directory)).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts')),
  ),
  path.join(root, 'package.json'),
  path.join(root, 'scripts/build-server.mjs'),
];

/** Builds the bundle unless it is up to date; call it from a globalSetup, before any test starts a process. */
export async function buildServerBundle(): Promise<void> {
  await buildOnce(
    path.join(root, '.test-dist.lock'),
    path.join(BUNDLE_DIRECTORY, '.build-stamp'),
    sources,
    async () => {
      await promisify(execFile)(process.execPath, [path.join(root, 'scripts/build-server.mjs'), BUNDLE_DIRECTORY], {
        cwd: root,
      });
    },
  );
}
