/**
 * @module gateway/relay/stream-pacer
 * What a key's streams together may relay on this node per second (STREAM_BYTES_PER_SECOND_PER_KEY):
 * a token bucket per key, holding one second's worth, that the stream relay draws each upstream
 * chunk from (pipe-stream.ts). A stream over its key's rate is not refused: its upstream read waits
 * until the bucket has refilled, so the bytes come at the rate and no faster. A model writes a few
 * kilobytes a second; only an upstream flooding the gateway (or a buffered reply of several megabytes
 * at once, after its first second's worth) meets the rate. Without it a few streams as fast as the
 * network goes keep the cores converting, and every other client's requests wait behind them.
 */

/** How long to wait before reading the next chunk, in ms, after `bytes` were relayed; 0: at once. */
export type Pace = (bytes: number) => number;

/** One key's open streams on this node: their shared bucket. */
interface Bucket {
  available: number;
  at: number;
  streams: number;
}

export const unpaced: Pace = () => 0;

export class StreamPacer {
  readonly #buckets = new Map<string, Bucket>();
  readonly #bytesPerSecond: number;
  readonly #now: () => number;

  /** `bytesPerSecond` 0 paces nothing. */
  constructor(bytesPerSecond: number, now: () => number = () => performance.now()) {
    this.#bytesPerSecond = bytesPerSecond;
    this.#now = now;
  }

  /**
   * A stream of `key` opens: its pace, and the call that closes it. The bucket is forgotten once the
   * key's last stream closes (a full bucket is what a new one starts with anyway, one second later).
   */
  open(key: string): { pace: Pace; close: () => void } {
    const rate = this.#bytesPerSecond;
    if (rate <= 0) return { pace: unpaced, close: () => {} };
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { available: rate, at: this.#now(), streams: 0 };
      this.#buckets.set(key, bucket);
    }
    bucket.streams++;
    const held = bucket;
    let open = true;
    const pace: Pace = (bytes) => {
      const now = this.#now();
      held.available = Math.min(rate, held.available + ((now - held.at) * rate) / 1000);
      held.at = now;
      held.available -= bytes;
      return held.available >= 0 ? 0 : Math.ceil((-held.available * 1000) / rate);
    };
    const close = () => {
      if (!open) return;
      open = false;
      held.streams--;
      if (held.streams === 0 && this.#buckets.get(key) === held) this.#buckets.delete(key);
    };
    return { pace, close };
  }

  /** Keys with a stream open on this node (for tests and metrics). */
  get keys(): number {
    return this.#buckets.size;
  }
}
