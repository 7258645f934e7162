#!/usr/bin/env node
/**
 * The server bundle: the gateway, the projector, the rebuild command and the embedded store's worker,
 * bundled by esbuild with their packages left external (`npm run build:server`).
 *
 *   node scripts/build-server.mjs [OUTDIR]     OUTDIR defaults to dist; it is emptied first
 *
 * The tests that start gateways and projectors as processes build the same bundle into a directory of
 * their own (test/support/server-bundle.ts), so that `npm run gateway` in another test cannot empty it
 * under them.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.resolve(root, process.argv[2] ?? 'dist');

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['gateway/main.ts', 'projector/main.ts', 'projector/rebuild.ts', 'stores/embedded/store-worker.ts'],
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  packages: 'external',
  splitting: true,
  sourcemap: true,
  outdir,
  outbase: '.',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
