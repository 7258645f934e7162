/**
 * @module test/container/docker
 * The container suites drive the Docker CLI directly (the operator's own commands: run, stop, compose),
 * against the images `scripts/images build` makes. Where no engine answers or the image is missing the
 * suite is skipped loudly, and with CONTAINER_SUITE_REQUIRED=1 (set by .ci/run when it built the images)
 * that skip is a failure.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const gatewayImage = process.env.GATEWAY_IMAGE ?? 'llm-gateway:local';

/** Runs a docker command to completion; throws with its output when it fails. */
export function docker(args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): string {
  const result = spawnSync('docker', args, {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    env: options.env ?? process.env,
    cwd: projectRoot,
  });
  if (result.status !== 0)
    throw new Error(`docker ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
  return result.stdout.trim();
}

/** The same without blocking the event loop (the test keeps reading a stream meanwhile). */
export function dockerAsync(args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { timeout: timeoutMs, cwd: projectRoot }, (error, stdout, stderr) =>
      error ? reject(new Error(`docker ${args.join(' ')} failed: ${stderr || error.message}`)) : resolve(stdout.trim()),
    );
  });
}

/** Why the container suite cannot run here, or null when it can. */
function unavailable(): string | null {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
  if (info.error || info.status !== 0)
    return `no Docker engine answers (${(info.stderr || String(info.error)).trim()})`;
  const image = spawnSync('docker', ['image', 'inspect', gatewayImage], { encoding: 'utf8', timeout: 20_000 });
  if (image.status !== 0) return `the image ${gatewayImage} is missing: run scripts/images build`;
  return null;
}

/** True when the suite can run; otherwise prints the loud banner (or throws when the suite is required). */
export function containerSuiteRuns(): boolean {
  const why = unavailable();
  if (!why) return true;
  const message = `[container suite] SKIPPED: ${why}`;
  if (process.env.CONTAINER_SUITE_REQUIRED === '1') throw new Error(message);
  console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  return false;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls until `read` gives a value `done` accepts, or the time is up (then returns the last value). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    value = await read();
  }
  return value;
}

/** The status of GET url, 0 when nothing answers. */
export async function statusOf(url: string): Promise<number> {
  return fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
    (response) => response.status,
    () => 0,
  );
}
