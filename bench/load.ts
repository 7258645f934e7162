/**
 * @module bench/load
 * The load generator, in-process on undici: a closed loop of N concurrent non-streamed requests
 * (latency percentiles and requests per second), a streaming client that times the first token and
 * the gaps between tokens, and a holder of many concurrent slow streams for memory measurements.
 * Percentiles are exact: every sample is kept and sorted (a run holds at most a few hundred thousand).
 */
import { Pool } from 'undici';
import { TOKEN_MARKER } from './fake-upstream.ts';

/** One kind of request against one target. */
export interface RequestShape {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export class Samples {
  #values = new Float64Array(1024);
  #length = 0;
  #sorted = true;

  add(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
    this.#sorted = false;
  }

  get count(): number {
    return this.#length;
  }

  /** The q-quantile (0..1), nearest rank; NaN when empty. */
  quantile(q: number): number {
    if (this.#length === 0) return Number.NaN;
    const view = this.#values.subarray(0, this.#length);
    if (!this.#sorted) {
      view.sort();
      this.#sorted = true;
    }
    return view[Math.min(this.#length - 1, Math.max(0, Math.ceil(q * this.#length) - 1))]!;
  }

  mean(): number {
    let sum = 0;
    for (let index = 0; index < this.#length; index++) sum += this.#values[index]!;
    return this.#length ? sum / this.#length : Number.NaN;
  }
}

export interface LatencyResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  firstError: string | null;
  /** the upstream called directly, one request before each of the target's (see LoadOptions.baseline) */
  baseline?: { p50: number; p99: number; requests: number };
}

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  /**
   * The same request sent straight to the upstream before each request to the target, so both see the
   * same moments of the machine (a busy moment slows both): the added latency is then measured on
   * interleaved samples instead of on two runs minutes apart.
   */
  baseline?: RequestShape;
}

function describeFailure(status: number, body: string): string {
  return `HTTP ${status}: ${body.slice(0, 200)}`;
}

/** N workers, each sending the next request as soon as the last one is answered. */
export async function closedLoop(shape: RequestShape, options: LoadOptions): Promise<LatencyResult> {
  const pool = new Pool(shape.origin, { connections: options.concurrency, pipelining: 1 });
  const baselinePool = options.baseline
    ? new Pool(options.baseline.origin, { connections: options.concurrency, pipelining: 1 })
    : null;
  const baseline = new Samples();
  const samples = new Samples();
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  let errors = 0;
  let firstError: string | null = null;
  const worker = async () => {
    for (;;) {
      if (baselinePool && options.baseline) {
        const direct = options.baseline;
        const sent = performance.now();
        if (sent >= end) return;
        const response = await baselinePool.request({
          path: direct.path,
          method: 'POST',
          headers: direct.headers,
          body: direct.body,
        });
        await response.body.text();
        if (sent >= measureFrom && response.statusCode === 200) baseline.add(performance.now() - sent);
      }
      const sent = performance.now();
      if (sent >= end) return;
      try {
        const response = await pool.request({
          path: shape.path,
          method: 'POST',
          headers: shape.headers,
          body: shape.body,
        });
        const text = await response.body.text();
        const done = performance.now();
        if (response.statusCode !== 200) {
          if (sent >= measureFrom) errors++;
          firstError ??= describeFailure(response.statusCode, text);
        } else if (sent >= measureFrom && done <= end) samples.add(done - sent);
      } catch (error) {
        if (sent >= measureFrom) errors++;
        firstError ??= String(error);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await pool.close();
  await baselinePool?.close();
  const seconds = options.durationMs / 1000;
  return {
    ...(baselinePool
      ? { baseline: { p50: baseline.quantile(0.5), p99: baseline.quantile(0.99), requests: baseline.count } }
      : {}),
    requests: samples.count,
    errors,
    seconds,
    rps: samples.count / seconds,
    p50: samples.quantile(0.5),
    p90: samples.quantile(0.9),
    p99: samples.quantile(0.99),
    max: samples.quantile(1),
    firstError,
  };
}

export interface StreamResult {
  streams: number;
  errors: number;
  ttft: { p50: number; p99: number };
  gap: { p50: number; p99: number; mean: number };
  total: { p50: number };
  firstError: string | null;
  /** the upstream streamed directly, one stream before each of the target's */
  baseline?: { ttft: { p50: number; p99: number }; gap: { p50: number; p99: number } };
}

interface OneStream {
  ok: boolean;
  error?: string;
}

const END_PATTERN = /\[DONE\]|message_stop/;

/** Reads one streamed reply, timing its first token and every gap after it. */
async function readStream(
  pool: Pool,
  shape: RequestShape,
  onTiming: ((ttft: number, gaps: number[], total: number) => void) | null,
  onOpen?: () => void,
): Promise<OneStream> {
  const sent = performance.now();
  const response = await pool.request({ path: shape.path, method: 'POST', headers: shape.headers, body: shape.body });
  if (response.statusCode !== 200)
    return { ok: false, error: describeFailure(response.statusCode, await response.body.text()) };
  onOpen?.();
  let ttft = -1;
  let last = 0;
  const gaps: number[] = [];
  let tail = '';
  for await (const chunk of response.body) {
    const now = performance.now();
    const text = (chunk as Buffer).toString('latin1');
    if (text.includes(TOKEN_MARKER)) {
      if (ttft < 0) ttft = now - sent;
      else gaps.push(now - last);
      last = now;
    }
    tail = (tail + text).slice(-32);
  }
  if (!END_PATTERN.test(tail)) return { ok: false, error: `stream ended without its end frame: …${tail}` };
  if (ttft < 0) return { ok: false, error: 'stream carried no token' };
  onTiming?.(ttft, gaps, performance.now() - sent);
  return { ok: true };
}

/** N concurrent streaming clients in a closed loop: time to first token and inter-chunk gaps. */
export async function streamLoop(shape: RequestShape, options: LoadOptions): Promise<StreamResult> {
  const pool = new Pool(shape.origin, { connections: options.concurrency, pipelining: 1 });
  const baselinePool = options.baseline
    ? new Pool(options.baseline.origin, { connections: options.concurrency, pipelining: 1 })
    : null;
  const baseTtft = new Samples();
  const baseGaps = new Samples();
  const ttft = new Samples();
  const gaps = new Samples();
  const totals = new Samples();
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  let errors = 0;
  let firstError: string | null = null;
  const worker = async () => {
    for (;;) {
      if (baselinePool && options.baseline) {
        const sent = performance.now();
        if (sent >= end) return;
        await readStream(
          baselinePool,
          options.baseline,
          sent >= measureFrom
            ? (first, between) => {
                baseTtft.add(first);
                for (const gap of between) baseGaps.add(gap);
              }
            : null,
        );
      }
      const sent = performance.now();
      if (sent >= end) return;
      const record = sent >= measureFrom;
      try {
        const result = await readStream(
          pool,
          shape,
          record
            ? (first, between, total) => {
                ttft.add(first);
                for (const gap of between) gaps.add(gap);
                totals.add(total);
              }
            : null,
        );
        if (!result.ok) {
          if (record) errors++;
          firstError ??= result.error ?? 'failed';
        }
      } catch (error) {
        if (record) errors++;
        firstError ??= String(error);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await pool.close();
  await baselinePool?.close();
  return {
    ...(baselinePool
      ? {
          baseline: {
            ttft: { p50: baseTtft.quantile(0.5), p99: baseTtft.quantile(0.99) },
            gap: { p50: baseGaps.quantile(0.5), p99: baseGaps.quantile(0.99) },
          },
        }
      : {}),
    streams: ttft.count,
    errors,
    ttft: { p50: ttft.quantile(0.5), p99: ttft.quantile(0.99) },
    gap: { p50: gaps.quantile(0.5), p99: gaps.quantile(0.99), mean: gaps.mean() },
    total: { p50: totals.quantile(0.5) },
    firstError,
  };
}

export interface HoldResult {
  streams: number;
  completed: number;
  errors: number;
  /** most streams open at the same moment */
  maxOpen: number;
  idleRss: number;
  peakRss: number;
  firstError: string | null;
  seconds: number;
}

/** Opens `count` slow streams at once and samples the target's memory until they have all ended. */
export async function holdStreams(shape: RequestShape, count: number, rss: () => number): Promise<HoldResult> {
  const idleRss = rss();
  let peakRss = idleRss;
  const pool = new Pool(shape.origin, { connections: count, pipelining: 1, headersTimeout: 60_000 });
  let open = 0;
  let maxOpen = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | null = null;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rss());
  }, 100);
  const started = performance.now();
  const one = async () => {
    let opened = false;
    try {
      const result = await readStream(pool, shape, null, () => {
        opened = true;
        maxOpen = Math.max(maxOpen, ++open);
      });
      if (result.ok) completed++;
      else {
        errors++;
        firstError ??= result.error ?? 'failed';
      }
    } catch (error) {
      errors++;
      firstError ??= String(error);
    } finally {
      if (opened) open--;
    }
  };
  await Promise.all(Array.from({ length: count }, one));
  clearInterval(sampler);
  peakRss = Math.max(peakRss, rss());
  await pool.close();
  return {
    streams: count,
    completed,
    errors,
    maxOpen,
    idleRss,
    peakRss,
    firstError,
    seconds: (performance.now() - started) / 1000,
  };
}
