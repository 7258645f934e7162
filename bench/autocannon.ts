/**
 * @module bench/autocannon
 * A second, independent load generator, so that the bench's figures do not rest on one client's
 * quirks: autocannon (its own HTTP/1.1 client on raw sockets, not undici) driving the same closed loop
 * in back-to-back windows, each window one run of its CLI with `--json`.
 *
 * It is a pinned devDependency: a missing binary means a broken install, reported as such rather than
 * leaving the cross-check out quietly.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RequestShape } from './load.ts';
import { ROOT } from './processes.ts';
import { type SustainedOptions, type SustainedResult, summarise } from './sustained.ts';

export const AUTOCANNON_VERSION = '8.0.0';

/** The autocannon CLI's path, or null with the reason it could not be had. */
export function findAutocannon(): { bin: string } | { reason: string } {
  const local = path.join(ROOT, 'node_modules/.bin/autocannon');
  if (existsSync(local)) return { bin: local };
  return { reason: `${local} is missing: run \`npm install\` (autocannon@${AUTOCANNON_VERSION} is a devDependency)` };
}

/** What `autocannon --json` prints that is read here. */
interface AutocannonJson {
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

function runWindow(bin: string, shape: RequestShape, concurrency: number, seconds: number): Promise<AutocannonJson> {
  const headers = Object.entries(shape.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
  const args = ['--json', '-c', String(concurrency), '-d', String(seconds), '-m', 'POST', ...headers, '-b', shape.body];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...args, `${shape.origin}${shape.path}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as AutocannonJson);
      } catch {
        reject(new Error(`autocannon exited with ${code}: ${(err || out).slice(0, 300)}`));
      }
    });
  });
}

/** Back-to-back windows of autocannon's closed loop; the answers counted as `sustainedLoop` counts them. */
export async function autocannonLoop(
  bin: string,
  shape: RequestShape,
  options: SustainedOptions,
): Promise<SustainedResult> {
  const windowSeconds = Math.max(1, Math.round(options.windowMs / 1000));
  const windows = Math.max(1, Math.round(options.durationMs / options.windowMs));
  if (options.warmupMs > 0) await runWindow(bin, shape, options.concurrency, Math.ceil(options.warmupMs / 1000));
  const okPerWindow: number[] = [];
  const failures: Record<string, number> = {};
  let firstError: string | null = null;
  for (let index = 0; index < windows; index++) {
    const result = await runWindow(bin, shape, options.concurrency, windowSeconds);
    okPerWindow.push(result['2xx']);
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
      if (status.startsWith('2')) continue;
      failures[status] = (failures[status] ?? 0) + count;
      firstError ??= `HTTP ${status}`;
    }
    if (result.errors + result.timeouts > 0) {
      failures['error'] = (failures['error'] ?? 0) + result.errors + result.timeouts;
      firstError ??= `${result.errors} connection errors, ${result.timeouts} timeouts`;
    }
  }
  return summarise(
    options.concurrency,
    windows * windowSeconds * 1000,
    okPerWindow,
    windowSeconds * 1000,
    failures,
    firstError,
  );
}
