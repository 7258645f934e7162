/**
 * @module gateway/events/publisher
 * Traffic events leave the hot path through this batcher: `publish` only queues, and a flush a few
 * milliseconds later appends the whole batch. Appends follow each other as each is acknowledged, or no
 * closer than the log's `appendIntervalMs` (Kafka's). A failed append keeps the batch at the head of
 * the queue and retries with backoff, so events are delayed, never dropped; `close` drains everything.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { EventLog } from '../../stores/ports.ts';

export interface EventPublisherOptions {
  /** events per append at most */
  maxBatch?: number;
  /** events per serialised batch at most (see SERIALIZED_BATCH) */
  serializedBatch?: number;
  maxDelayMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * A flush cuts the queue into serialised batches of at most this many events (about 60 KB of traffic
 * events), and an append hands several over side by side, never joined. Memory blocks over 128 KB (a
 * string in V8's heap, or a buffer from malloc under the start script's MALLOC_MMAP_THRESHOLD_) are
 * each mapped fresh and unmapped when freed, a page fault each time; batches this small, kept as bytes
 * (see EventLog.serialize), avoid that (figures: docs/performance.md, "Batches of at most 100 events,
 * kept as bytes").
 */
const SERIALIZED_BATCH = 100;

/** A batch cut from the queue and serialised, waiting for its append (see EventLog.serialize). */
interface SerializedBatch {
  bytes: Uint8Array;
  count: number;
}

export class EventPublisher {
  readonly #log: EventLog;
  /** whether the log takes batches serialised ahead of their append */
  readonly #serializing: boolean;
  readonly #maxBatch: number;
  readonly #serializedBatch: number;
  readonly #maxDelayMs: number;
  readonly #onError: (error: unknown) => void;
  /** Events published and not yet cut into a batch. */
  #queue: GatewayEvent[] = [];
  /**
   * With a log that serialises: the batches cut at each flush, in order, the first ones being appended
   * or waiting for their retry. Cutting does not wait for the append before it, so no event lives past
   * its flush as an object (an append of the store worker can take longer than the flush interval);
   * the batches cut meanwhile are appended together, so a slow log still gets fewer, larger appends.
   */
  readonly #serialized: SerializedBatch[] = [];
  #serializedCount = 0;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #failures = 0;
  /** See EventLog.appendIntervalMs. */
  readonly #appendIntervalMs: number;
  #lastAppendAt = Number.NEGATIVE_INFINITY;

  constructor(
    log: EventLog,
    {
      maxBatch = 500,
      serializedBatch = SERIALIZED_BATCH,
      maxDelayMs = 5,
      onError = () => {},
    }: EventPublisherOptions = {},
  ) {
    this.#log = log;
    this.#serializing = Boolean(log.serialize && log.appendSerialized);
    this.#appendIntervalMs = log.appendIntervalMs ?? 0;
    this.#maxBatch = maxBatch;
    // At least one event per batch, or a cut would never empty the queue.
    this.#serializedBatch = Math.max(1, Math.min(serializedBatch, maxBatch));
    this.#maxDelayMs = maxDelayMs;
    this.#onError = onError;
  }

  /** Events waiting to be appended. */
  get depth(): number {
    return this.#queue.length + this.#serializedCount;
  }

  publish(...events: GatewayEvent[]): void {
    this.#queue.push(...events);
    if (this.#queue.length >= this.#maxBatch) this.#schedule(0);
    else this.#schedule(this.#maxDelayMs);
  }

  #schedule(delayMs: number): void {
    // A log without serialisation takes what queued during an append as the next batch (as few,
    // large appends as the log's round trips allow).
    if (this.#flushing && !this.#serializing) return;
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
    this.#cut();
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = null;
      if (this.depth > 0) this.#schedule(this.#retryDelay());
    });
    return this.#flushing;
  }

  /**
   * With a log that serialises, turns the queue into serialised batches of at most `serializedBatch`
   * events. Events that cannot be serialised stay queued, and the drain hands them to `append`, whose
   * failure is retried like any other: a flush must not throw from its timer, nor drop what it took.
   */
  #cut(): void {
    if (!this.#serializing) return;
    while (this.#queue.length > 0) {
      const events = this.#queue.slice(0, this.#serializedBatch);
      let bytes: Uint8Array;
      try {
        bytes = this.#log.serialize!(events);
      } catch (error) {
        this.#onError(error);
        return;
      }
      this.#queue.splice(0, events.length);
      this.#serialized.push({ bytes, count: events.length });
      this.#serializedCount += events.length;
    }
  }

  async #drain(): Promise<void> {
    for (;;) {
      // What was published during the last append is cut now, and waits as bytes for its turn.
      this.#cut();
      const waiting = this.#takeSerialized();
      const batch = waiting ? null : this.#queue.slice(0, this.#maxBatch);
      if (batch?.length === 0) return;
      // A full append goes at once; a smaller one waits out the log's interval, serialised or not.
      const count = waiting ? waiting.count : batch!.length;
      const early = count < this.#maxBatch ? this.#lastAppendAt + this.#appendIntervalMs - performance.now() : 0;
      if (early > 0) {
        // Too soon after the last append for this log: what is published meanwhile joins this one.
        // The timer keeps the process alive, as the append it stands for would.
        await new Promise((resolve) => setTimeout(resolve, early));
        continue;
      }
      this.#lastAppendAt = performance.now();
      try {
        if (waiting) {
          // The batches cut while the last append ran go as one append, as a burst would unserialised.
          await this.#log.appendSerialized!(waiting.batches);
          this.#serialized.splice(0, waiting.batches.length);
          this.#serializedCount -= waiting.count;
        } else {
          await this.#log.append(batch!);
          this.#queue.splice(0, batch!.length);
        }
        this.#failures = 0;
      } catch (error) {
        this.#failures++;
        this.#onError(error);
        return;
      }
    }
  }

  /** The serialised batches at the head that fit in one append of maxBatch events (at least one). */
  #takeSerialized(): { batches: Uint8Array[]; count: number } | null {
    if (this.#serialized.length === 0) return null;
    const batches: Uint8Array[] = [];
    let count = 0;
    for (const batch of this.#serialized) {
      if (batches.length > 0 && count + batch.count > this.#maxBatch) break;
      batches.push(batch.bytes);
      count += batch.count;
    }
    return { batches, count };
  }

  #retryDelay(): number {
    return this.#failures === 0 ? this.#maxDelayMs : Math.min(100 * 2 ** Math.min(this.#failures, 6), 5_000);
  }

  /** Drains the queue, retrying until it is empty or the deadline passes. */
  async close(deadlineMs = 10_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    while (this.depth > 0 && Date.now() < deadline) {
      await this.flush();
      const wait = Math.min(this.#retryDelay(), deadline - Date.now());
      if (this.depth > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    if (this.depth > 0) throw new Error(`${this.depth} events could not be appended before shutdown.`);
  }
}
