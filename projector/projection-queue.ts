/**
 * @module projector/projection-queue
 * Gathers the batches of every partition into one write at a time. ClickHouse pays a nearly fixed
 * price per statement (a few hundred milliseconds for the projector's six, on two cores, whether a
 * batch holds 4,000 events or 48,000), and batches of different partitions touch the same (user,
 * hour) pairs, so one write of everything fetched meanwhile costs about what one partition's batch
 * did. The consumer keeps fetching while a write runs (so Kafka, decoding and parsing overlap
 * ClickHouse's work), up to `maxQueuedEvents` waiting; each batch learns when its events are written,
 * and only then are its offsets committed.
 *
 * Under live traffic (not a backlog) writes start at most every `minWriteIntervalMs`: each write's
 * statements cost ClickHouse about the same whatever it holds, so back-to-back writes of a few
 * thousand events kept ClickHouse busy on a core that the gateway shares on a small machine. When a
 * write takes longer than a tenth of that interval (the stores are loaded, or share their cores with
 * the gateway), the next one starts ten times as long as it took after it, up to
 * LONGEST_INTERVAL_MS: the writes then keep the stores busy at most a tenth of the time, and under
 * heavy traffic the overview falls a second or two further behind instead of the gateway's goodput
 * falling (figures: docs/performance.md, "The projector's batches kept as bytes"). A queue that
 * fills a whole write starts it at once, so catching up is not slowed.
 */
export interface Queued {
  /** resolves once the queue has room again: the caller may fetch more */
  accepted: Promise<void>;
  /** resolves once these events are written; rejects if the write was abandoned (the queue stopped) */
  written: Promise<void>;
}

interface Entry<Batch> {
  batch: Batch;
  /** its events */
  size: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Under live traffic, writes keep the stores busy at most this share of the time (see above). */
const WRITING_SHARE = 0.1;
/** The longest wait the writes' duration stretches the interval to. */
const LONGEST_INTERVAL_MS = 5_000;

export class ProjectionQueue<Batch> {
  readonly #write: (batches: Batch[]) => Promise<void>;
  readonly #maxQueuedEvents: number;
  readonly #maxWriteEvents: number;
  #queued: Array<Entry<Batch>> = [];
  #queuedEvents = 0;
  #waitingForRoom: Array<() => void> = [];
  #draining: Promise<void> | null = null;
  readonly #minWriteIntervalMs: number;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  /** How long the last write took, in milliseconds. */
  #lastWriteMs = 0;
  /** Ends the wait for the interval early: the queue holds a whole write. */
  #wake: (() => void) | null = null;

  /**
   * `write` retries on its own until it succeeds or gives up (throws); a write takes whole batches,
   * up to `maxWriteEvents` events (one batch larger than that goes alone), in the order they came.
   */
  constructor(
    write: (batches: Batch[]) => Promise<void>,
    maxQueuedEvents: number,
    maxWriteEvents: number,
    minWriteIntervalMs = 0,
  ) {
    this.#write = write;
    this.#maxQueuedEvents = maxQueuedEvents;
    this.#maxWriteEvents = maxWriteEvents;
    this.#minWriteIntervalMs = minWriteIntervalMs;
  }

  /** Queues a batch of `size` events. */
  enqueue(batch: Batch, size: number): Queued {
    const written = new Promise<void>((resolve, reject) => {
      this.#queued.push({ batch, size, resolve, reject });
    });
    // A write abandoned at stop rejects `written`; whoever awaits it handles that, nobody else must.
    written.catch(() => {});
    this.#queuedEvents += size;
    if (this.#queuedEvents >= this.#maxWriteEvents) this.#wake?.();
    this.#draining ??= this.#drain();
    const accepted =
      this.#queuedEvents <= this.#maxQueuedEvents
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#waitingForRoom.push(resolve));
    return { accepted, written };
  }

  /** Resolves when everything queued so far has been written or abandoned. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    // The batches of one fetch are handed over within a few microtasks of each other: wait for them.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#queued.length > 0) {
      await this.#interval();
      this.#lastWriteAt = performance.now();
      const group = this.#take();
      try {
        await this.#write(group.map((entry) => entry.batch));
        for (const entry of group) entry.resolve();
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
      this.#lastWriteMs = performance.now() - this.#lastWriteAt;
    }
    this.#draining = null;
  }

  /** Waits out the rest of the interval since the last write began, unless a whole write is queued. */
  async #interval(): Promise<void> {
    const interval =
      this.#minWriteIntervalMs === 0
        ? 0
        : Math.max(this.#minWriteIntervalMs, Math.min(this.#lastWriteMs / WRITING_SHARE, LONGEST_INTERVAL_MS));
    const wait = this.#lastWriteAt + interval - performance.now();
    if (wait <= 0 || this.#queuedEvents >= this.#maxWriteEvents) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
  }

  #take(): Array<Entry<Batch>> {
    let events = 0;
    let count = 0;
    while (count < this.#queued.length) {
      const size = this.#queued[count]!.size;
      if (count > 0 && events + size > this.#maxWriteEvents) break;
      events += size;
      count++;
    }
    const group = this.#queued.splice(0, count);
    this.#queuedEvents -= events;
    if (this.#queuedEvents <= this.#maxQueuedEvents) for (const wake of this.#waitingForRoom.splice(0)) wake();
    return group;
  }
}
