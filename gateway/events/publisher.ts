/**
 * @module gateway/events/publisher
 * Traffic events leave the hot path through this batcher: `publish` only queues, and a flush a few
 * milliseconds later appends the whole batch. A failed append keeps the batch at the head of the
 * queue and retries with backoff, so events are delayed, never dropped; `close` drains everything.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { EventLog } from '../../stores/ports.ts';

export interface EventPublisherOptions {
  maxBatch?: number;
  maxDelayMs?: number;
  onError?: (error: unknown) => void;
}

export class EventPublisher {
  readonly #log: EventLog;
  readonly #maxBatch: number;
  readonly #maxDelayMs: number;
  readonly #onError: (error: unknown) => void;
  #queue: GatewayEvent[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #failures = 0;

  constructor(log: EventLog, { maxBatch = 500, maxDelayMs = 5, onError = () => {} }: EventPublisherOptions = {}) {
    this.#log = log;
    this.#maxBatch = maxBatch;
    this.#maxDelayMs = maxDelayMs;
    this.#onError = onError;
  }

  /** Events waiting to be appended. */
  get depth(): number {
    return this.#queue.length;
  }

  publish(...events: GatewayEvent[]): void {
    this.#queue.push(...events);
    if (this.#queue.length >= this.#maxBatch) this.#schedule(0);
    else this.#schedule(this.#maxDelayMs);
  }

  #schedule(delayMs: number): void {
    if (this.#flushing) return;
    if (this.#timer && delayMs > 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, delayMs);
    this.#timer.unref();
  }

  /** Appends everything queued so far. */
  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = null;
      if (this.#queue.length > 0) this.#schedule(this.#retryDelay());
    });
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice(0, this.#maxBatch);
      try {
        await this.#log.append(batch);
        this.#queue.splice(0, batch.length);
        this.#failures = 0;
      } catch (error) {
        this.#failures++;
        this.#onError(error);
        return;
      }
    }
  }

  #retryDelay(): number {
    return this.#failures === 0 ? this.#maxDelayMs : Math.min(100 * 2 ** Math.min(this.#failures, 6), 5_000);
  }

  /** Drains the queue, retrying until it is empty or the deadline passes. */
  async close(deadlineMs = 10_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.#queue.length > 0 && Date.now() < deadline) {
      await this.flush();
      const wait = Math.min(this.#retryDelay(), deadline - Date.now());
      if (this.#queue.length > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    if (this.#queue.length > 0) throw new Error(`${this.#queue.length} events could not be appended before shutdown.`);
  }
}
