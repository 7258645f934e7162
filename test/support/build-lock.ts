/**
 * @module test/support/build-lock
 * What the test builds (the console, the server bundle) share: a lock directory that keeps parallel
 * suites from building over each other, and a stamp of the sources that skips a build when nothing
 * changed since the last one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/** A hash of the files' names and contents, in a stable order. */
export function sourceStamp(files: string[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) hash.update(`${file}\0${readFileSync(file)}\0`);
  return hash.digest('hex');
}

async function withLock<Result>(
  lockDirectory: string,
  action: () => Promise<Result>,
  timeoutMs = 180_000,
): Promise<Result> {
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

/**
 * Runs `build` unless `stampFile` holds the stamp of `sources` (then returns false); one build at a
 * time across processes. `build` must leave the directory of `stampFile` in place.
 */
export function buildOnce(
  lockDirectory: string,
  stampFile: string,
  sources: () => string[],
  build: () => Promise<void>,
): Promise<boolean> {
  return withLock(lockDirectory, async () => {
    const stamp = sourceStamp(sources());
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return false;
    await build();
    writeFileSync(stampFile, stamp);
    return true;
  });
}
