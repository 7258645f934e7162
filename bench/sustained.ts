/**
 * @module bench/sustained
 * Sustained load as users live with it: a closed loop of N clients for tens of seconds, its answers
 * counted per window by status, so that a goodput that collapses after the first seconds (answers
 * that are all 503) shows instead of averaging away. Optionally with a CPU-bound process beside the
 * target (`cpuHog`), the co-located service, log shipper or second tenant of a real machine.
 *
 * Run alone: `npx tsx bench/sustained.ts [--concurrency=64] [--seconds=30] [--window=5] [--hog=1]`
 * starts the fake upstream and the gateway as `npm start` runs it, prints the windows, and exits 1 when
 * any answer was not a 2xx.
 */
import { type Dispatcher, Pool } from 'undici';
import type { RequestShape } from './load.ts';
import { type Child, spawnCommand } from './processes.ts';

export interface SustainedOptions {
  concurrency: number;
  durationMs: number;
  windowMs: number;
  /** load before the first window, not counted */
  warmupMs: number;
}

export interface SustainedResult {
  concurrency: number;
  seconds: number;
  /** 2xx answers per second, one entry per window */
  windows: number[];
  /** 2xx answers per second over the whole run */
  goodput: number;
  /** the worst window over the best (1: flat) */
  worstOverBest: number;
  ok: number;
  /** answers that were not a 2xx, and transport errors, counted by status ("error" for the latter) */
  failures: Record<string, number>;
  failed: number;
  firstError: string | null;
  /** the load generator's own CPU (user and system, every thread) per 2xx over the windows, in µs */
  generatorCpuPerOk?: number;
  /**
   * Every answer of the run, warm-up and stragglers included: what the gateway must have recorded
   * (undici's loop only; autocannon abandons its requests in flight at the end of each window)
   */
  answered?: { ok: number; failed: number; transportErrors: number };
}

export const failedCount = (failures: Record<string, number>) =>
  Object.values(failures).reduce((sum, count) => sum + count, 0);

export function summarise(
  concurrency: number,
  durationMs: number,
  okPerWindow: number[],
  windowMs: number,
  failures: Record<string, number>,
  firstError: string | null,
): SustainedResult {
  const windows = okPerWindow.map((count) => count / (windowMs / 1000));
  const ok = okPerWindow.reduce((sum, count) => sum + count, 0);
  const best = Math.max(...windows);
  return {
    concurrency,
    seconds: durationMs / 1000,
    windows,
    goodput: ok / (durationMs / 1000),
    worstOverBest: best > 0 ? Math.min(...windows) / best : 0,
    ok,
    failures,
    failed: failedCount(failures),
    firstError,
  };
}

/**
 * One request through the pool's dispatcher, its body kept only when it is not a 2xx (for the first
 * error's text). `pool.request` wraps every answer in a Readable stream, and on two cores shared with
 * the target a heavier client takes its CPU from the target: measured beside autocannon.
 */
function send(pool: Pool, request: Dispatcher.DispatchOptions): Promise<{ statusCode: number; text: string }> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    const kept: Buffer[] = [];
    pool.dispatch(request, {
      // undici tells the handler's interface by this method: without it the legacy one is expected.
      onRequestStart() {},
      onResponseStart(_controller, status) {
        statusCode = status;
      },
      onResponseData(_controller, chunk) {
        if (statusCode < 200 || statusCode >= 300) kept.push(chunk);
      },
      onResponseEnd() {
        resolve({ statusCode, text: Buffer.concat(kept).toString('utf8') });
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    });
  });
}

/** Closed loop: each client sends its next request when the last one is answered, whatever it was. */
export async function sustainedLoop(shape: RequestShape, options: SustainedOptions): Promise<SustainedResult> {
  const pool = new Pool(shape.origin, { connections: options.concurrency, pipelining: 1, headersTimeout: 120_000 });
  const windowCount = Math.max(1, Math.round(options.durationMs / options.windowMs));
  const okPerWindow = new Array<number>(windowCount).fill(0);
  const failures: Record<string, number> = {};
  let firstError: string | null = null;
  const answered = { ok: 0, failed: 0, transportErrors: 0 };
  const start = performance.now() + options.warmupMs;
  const end = start + windowCount * options.windowMs;
  // This process does nothing else while the loop runs: its CPU over the windows is the generator's.
  let cpuAtStart: NodeJS.CpuUsage | null = null;
  const cpuTimer = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
  }, options.warmupMs);
  // Built once: headers as a flat list and the body as bytes, so that no request re-reads them.
  const request: Dispatcher.DispatchOptions = {
    path: shape.path,
    method: 'POST',
    headers: Object.entries(shape.headers).flat(),
    body: Buffer.from(shape.body),
  };
  const client = async () => {
    while (performance.now() < end) {
      try {
        const response = await send(pool, request);
        const text = response.text;
        const success = response.statusCode >= 200 && response.statusCode < 300;
        answered[success ? 'ok' : 'failed']++;
        const now = performance.now();
        if (now < start || now >= end) continue;
        if (success) {
          okPerWindow[Math.floor((now - start) / options.windowMs)]!++;
        } else {
          failures[response.statusCode] = (failures[response.statusCode] ?? 0) + 1;
          firstError ??= `HTTP ${response.statusCode}: ${text.slice(0, 200)}`;
        }
      } catch (error) {
        answered.transportErrors++;
        const now = performance.now();
        if (now >= start && now < end) failures['error'] = (failures['error'] ?? 0) + 1;
        firstError ??= String(error);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  clearTimeout(cpuTimer);
  const cpu = cpuAtStart ? process.cpuUsage(cpuAtStart) : null;
  await pool.close();
  const ok = okPerWindow.reduce((sum, count) => sum + count, 0);
  return {
    ...(cpu && ok > 0 && { generatorCpuPerOk: (cpu.user + cpu.system) / ok }),
    ...summarise(
      options.concurrency,
      windowCount * options.windowMs,
      okPerWindow,
      options.windowMs,
      failures,
      firstError,
    ),
    answered,
  };
}

/** A single-threaded busy loop at normal priority, in its own process group (stopped with it). */
export function startCpuHog(name = 'cpu-hog'): Child {
  return spawnCommand(name, process.execPath, ['-e', 'for(;;){}']);
}

export function describeSustained(result: SustainedResult): string {
  const windows = result.windows.map((value) => value.toFixed(0)).join(', ');
  const failures = result.failed
    ? `${result.failed} non-2xx (${Object.entries(result.failures)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')})`
    : 'no non-2xx';
  return (
    `c=${result.concurrency}, ${result.seconds} s: ${result.goodput.toFixed(0)} 2xx/s, windows [${windows}], ` +
    `worst/best ${result.worstOverBest.toFixed(2)}, ${failures}` +
    (result.generatorCpuPerOk === undefined ? '' : `, generator ${result.generatorCpuPerOk.toFixed(0)} µs CPU per 2xx`)
  );
}
