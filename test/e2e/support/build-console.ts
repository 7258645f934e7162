/**
 * @module test/e2e/support/build-console
 * Builds the console into `console/dist` once per change: a stamp of the sources' sizes and times
 * skips the build when nothing changed, and a lock directory keeps parallel suites from building
 * over each other. The gateway serves `console/dist` when it exists.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const consoleRoot = path.join(root, 'console');
const stampFile = path.join(consoleRoot, 'dist', '.build-stamp');
const lockDirectory = path.join(consoleRoot, '.build-lock');

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

function sourceStamp(): string {
  const files = [
    ...filesUnder(path.join(consoleRoot, 'src')).filter((file) => !file.endsWith('.spec.ts')),
    path.join(consoleRoot, 'index.html'),
    path.join(consoleRoot, 'vite.config.ts'),
    path.join(consoleRoot, 'vite-precompress.ts'),
    path.join(root, 'contracts', 'console-api.ts'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0${readFileSync(file)}\0`);
  return hash.digest('hex');
}

async function withLock<Result>(action: () => Promise<Result>, timeoutMs = 180_000): Promise<Result> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lockDirectory);
      break;
    } catch {
      // A lock older than the timeout was left by a killed run.
      if (existsSync(lockDirectory) && Date.now() - statSync(lockDirectory).mtimeMs > timeoutMs) {
        rmSync(lockDirectory, { recursive: true, force: true });
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockDirectory}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await action();
  } finally {
    rmSync(lockDirectory, { recursive: true, force: true });
  }
}

/** Builds `console/dist` unless it is up to date with the sources; returns whether it built. */
export async function buildConsole(): Promise<boolean> {
  return withLock(async () => {
    const stamp = sourceStamp();
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return false;
    const { build } = await import('vite');
    await build({ configFile: path.join(consoleRoot, 'vite.config.ts'), logLevel: 'warn' });
    writeFileSync(stampFile, stamp);
    return true;
  });
}
