/**
 * @module bench/autocannon
 * A second, independent load generator, so that the bench's figures do not rest on one client's
 * quirks: autocannon (its own HTTP/1.1 client on raw sockets, not undici) driving the same closed loop
 * for the whole run, in its own process (`bench/autocannon-child.ts`), its answers counted into the
 * same windows as `sustainedLoop`'s by the time each arrived.
 *
 * One continuous run, not one run of its CLI per window: a fresh autocannon process per window
 * measured its own start (JIT, 64 new connections) in every window's figure, and its first window
 * read 0.47 of its best where undici's read 0.70 on the same gateway.
 *
 * It is a pinned devDependency: a missing package means a broken install, reported as such rather than
 * leaving the cross-check out quietly.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RequestShape } from './load.ts';
import { ROOT } from './processes.ts';
import { type SustainedOptions, type SustainedResult, summarise } from './sustained.ts';

export const AUTOCANNON_VERSION = '8.0.0';

const CHILD = path.join(ROOT, 'bench/autocannon-child.ts');

/** What the child prints when its run ends. */
export interface AutocannonCounts {
  okPerWindow: number[];
  failures: Record<string, number>;
  firstError: string | null;
  /** the child's CPU (user and system, µs) over the windows */
  cpuMicroseconds: number;
}

/** Where autocannon is, or the reason it could not be had. */
export function findAutocannon(): { bin: string } | { reason: string } {
  const local = path.join(ROOT, 'node_modules/autocannon/package.json');
  if (existsSync(local)) return { bin: local };
  return { reason: `${local} is missing: run \`npm install\` (autocannon@${AUTOCANNON_VERSION} is a devDependency)` };
}

/** autocannon's closed loop for `options.durationMs` after its warm-up, counted as `sustainedLoop` counts. */
export async function autocannonLoop(shape: RequestShape, options: SustainedOptions): Promise<SustainedResult> {
  const windows = Math.max(1, Math.round(options.durationMs / options.windowMs));
  const job = {
    shape,
    concurrency: options.concurrency,
    warmupMs: options.warmupMs,
    windowMs: options.windowMs,
    windows,
  };
  const counts = await new Promise<AutocannonCounts>((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(job)], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    let result: AutocannonCounts | null = null;
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('message', (message) => {
      result = message as AutocannonCounts;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`autocannon's run exited with ${code}: ${stderr.slice(0, 300)}`));
    });
  });
  const result = summarise(
    options.concurrency,
    windows * options.windowMs,
    counts.okPerWindow,
    options.windowMs,
    counts.failures,
    counts.firstError,
  );
  return result.ok > 0 ? { ...result, generatorCpuPerOk: counts.cpuMicroseconds / result.ok } : result;
}
