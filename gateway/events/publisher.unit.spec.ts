/**
 * The traffic-event batcher: publishes are batched into few appends, failures delay but never drop or
 * reorder events, and `close` drains or reports what it could not append.
 */
import { describe, expect, it } from 'vitest';
import { type GatewayEvent, partitionKeyOf } from '../../contracts/events/index.ts';
import type { EventLog } from '../../stores/ports.ts';
import { newEvent } from './new-event.ts';
import { EventPublisher } from './publisher.ts';

class FakeLog implements EventLog {
  readonly batches: GatewayEvent[][] = [];
  calls = 0;
  /** Number of upcoming appends that fail (Infinity: every one). */
  failNext = 0;

  async append(events: readonly GatewayEvent[]): Promise<void> {
    this.calls++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('log unreachable');
    }
    this.batches.push([...events]);
  }

  get appended(): string[] {
    return this.batches.flat().map(partitionKeyOf);
  }
}

const event = (index: number) => newEvent('channel.removed', { channelId: `c${index}` });
const names = (from: number, count: number) => Array.from({ length: count }, (_, index) => `c${from + index}`);

async function until(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('EventPublisher', () => {
  it('only queues on publish, then appends a burst in one batch', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxDelayMs: 5 });
    for (let index = 0; index < 100; index++) publisher.publish(event(index));
    expect(log.calls).toBe(0);
    expect(publisher.depth).toBe(100);
    await until(() => publisher.depth === 0);
    expect(log.batches.length).toBe(1);
    expect(log.appended).toEqual(names(0, 100));
  });

  it('never appends more than maxBatch events at once and keeps their order', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxBatch: 10, maxDelayMs: 5 });
    for (let index = 0; index < 35; index++) publisher.publish(event(index));
    await until(() => publisher.depth === 0);
    expect(log.batches.map((batch) => batch.length)).toEqual([10, 10, 10, 5]);
    expect(log.appended).toEqual(names(0, 35));
  });

  it('publishes several events of one call together', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log);
    publisher.publish(event(0), event(1));
    await publisher.flush();
    expect(log.batches).toHaveLength(1);
    expect(log.appended).toEqual(['c0', 'c1']);
  });

  it('flushes at once when maxBatch is reached instead of waiting maxDelayMs', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxBatch: 3, maxDelayMs: 60_000 });
    publisher.publish(event(0), event(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.calls).toBe(0);
    publisher.publish(event(2));
    await until(() => publisher.depth === 0, 1_000);
    expect(log.appended).toEqual(['c0', 'c1', 'c2']);
  });

  it('loses nothing and keeps order when an append fails twice then succeeds', async () => {
    const log = new FakeLog();
    const errors: unknown[] = [];
    const publisher = new EventPublisher(log, { maxBatch: 4, maxDelayMs: 1, onError: (error) => errors.push(error) });
    log.failNext = 2;
    for (let index = 0; index < 10; index++) publisher.publish(event(index));
    await until(() => publisher.depth === 0);
    expect(errors).toHaveLength(2);
    expect(log.calls).toBe(2 + 3);
    expect(log.appended).toEqual(names(0, 10));
    expect(new Set(log.appended).size).toBe(10);
  });

  it('appends events published while a failing batch waits for its retry after it, in order', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxDelayMs: 1 });
    log.failNext = 1;
    publisher.publish(event(0), event(1));
    await until(() => log.calls === 1);
    publisher.publish(event(2));
    await until(() => publisher.depth === 0);
    expect(log.appended).toEqual(['c0', 'c1', 'c2']);
  });

  it('close() drains the queue', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxBatch: 7, maxDelayMs: 60_000 });
    for (let index = 0; index < 20; index++) publisher.publish(event(index));
    await publisher.close(2_000);
    expect(publisher.depth).toBe(0);
    expect(log.appended).toEqual(names(0, 20));
  });

  it('close() retries through a failure before the deadline', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxDelayMs: 60_000 });
    log.failNext = 1;
    publisher.publish(event(0));
    await publisher.close(3_000);
    expect(log.appended).toEqual(['c0']);
  });

  it('close() rejects after the deadline when the log always fails, keeping the events queued', async () => {
    const log = new FakeLog();
    const publisher = new EventPublisher(log, { maxDelayMs: 60_000 });
    log.failNext = Number.POSITIVE_INFINITY;
    publisher.publish(event(0), event(1), event(2));
    const started = Date.now();
    await expect(publisher.close(150)).rejects.toThrow(/3 events could not be appended/);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(2_000);
    expect(log.calls).toBeGreaterThanOrEqual(1);
    expect(publisher.depth).toBe(3);
  });

  it('close() on an empty queue resolves without touching the log', async () => {
    const log = new FakeLog();
    await new EventPublisher(log).close(50);
    expect(log.calls).toBe(0);
  });

  describe('with a log that takes batches serialised', () => {
    /** Appends wait until `release()`; every batch is serialised as the JSON array of its events. */
    class SerializingLog extends FakeLog {
      readonly serialized: string[] = [];
      readonly appendedTexts: string[] = [];
      /** The bytes handed out, by their text: an append must hand back the very bytes it was given. */
      readonly #bytes = new Map<Uint8Array, string>();
      #waiting: Array<() => void> = [];
      hold = false;

      serialize(events: readonly GatewayEvent[]): Uint8Array {
        const text = JSON.stringify(events);
        this.serialized.push(text);
        const bytes = Buffer.from(text);
        this.#bytes.set(bytes, text);
        return bytes;
      }

      async appendSerialized(batches: readonly Uint8Array[]): Promise<void> {
        if (this.hold) await new Promise<void>((resolve) => this.#waiting.push(resolve));
        const texts = batches.map((bytes) => this.#bytes.get(bytes)!);
        this.appendedTexts.push(...texts);
        await this.append(texts.flatMap((text) => JSON.parse(text) as GatewayEvent[]));
      }

      /** How many events each serialised batch holds, in the order they were cut. */
      get serializedSizes(): number[] {
        return this.serialized.map((text) => (JSON.parse(text) as unknown[]).length);
      }

      release(): void {
        this.hold = false;
        for (const resolve of this.#waiting.splice(0)) resolve();
      }
    }

    it('serialises what is published while an append waits, without waiting for it, and appends it next', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { maxDelayMs: 2 });
      log.hold = true;
      publisher.publish(event(0), event(1));
      await until(() => log.serialized.length === 1);
      publisher.publish(event(2));
      // The first append still waits; the second batch is already serialised.
      await until(() => log.serialized.length === 2);
      expect(log.calls).toBe(0);
      expect(publisher.depth).toBe(3);
      log.release();
      await until(() => publisher.depth === 0);
      expect(log.appended).toEqual(['c0', 'c1', 'c2']);
      expect(log.appendedTexts).toEqual(log.serialized);
    });

    it('appends the batches cut while a slow append ran as one append, up to maxBatch events', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { maxBatch: 5, maxDelayMs: 2 });
      log.hold = true;
      publisher.publish(event(0));
      await until(() => log.serialized.length === 1);
      for (let index = 1; index <= 6; index++) {
        publisher.publish(event(index));
        await until(() => log.serialized.length === index + 1);
      }
      log.release();
      await until(() => publisher.depth === 0);
      // The first append, then the six batches of one cut behind it in two appends of at most five.
      expect(log.batches.map((batch) => batch.length)).toEqual([1, 5, 1]);
      expect(log.appended).toEqual(names(0, 7));
    });

    it('starts appends no closer together than the log’s interval, the batches cut meanwhile going together', async () => {
      class PacedLog extends SerializingLog {
        readonly appendIntervalMs = 40;
        readonly starts: number[] = [];
        override appendSerialized(batches: readonly Uint8Array[]): Promise<void> {
          this.starts.push(performance.now());
          return super.appendSerialized(batches);
        }
      }
      const log = new PacedLog();
      const publisher = new EventPublisher(log, { maxDelayMs: 1 });
      for (let index = 0; index < 100; index++) {
        publisher.publish(event(index));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await publisher.close();
      expect(log.appended).toEqual(names(0, 100));
      const gaps = log.starts.slice(1).map((start, index) => start - log.starts[index]!);
      // Timers fire up to a millisecond early on some platforms.
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(39);
      expect(log.starts.length).toBeGreaterThan(1);
      // Cut at every flush (a few milliseconds apart), several batches to an append.
      expect(log.serialized.length).toBeGreaterThan(2 * log.starts.length);
    });

    it('cuts what one flush takes into serialised batches of at most serializedBatch events', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { serializedBatch: 3, maxDelayMs: 2 });
      for (let index = 0; index < 7; index++) publisher.publish(event(index));
      await until(() => publisher.depth === 0);
      expect(log.serializedSizes).toEqual([3, 3, 1]);
      // One append takes the three side by side.
      expect(log.batches.map((batch) => batch.length)).toEqual([7]);
      expect(log.appendedTexts).toEqual(log.serialized);
      expect(log.appended).toEqual(names(0, 7));
    });

    it('cuts batches of one event when told zero, rather than never emptying the queue', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { serializedBatch: 0, maxDelayMs: 1 });
      publisher.publish(event(0), event(1));
      await until(() => publisher.depth === 0);
      expect(log.serializedSizes).toEqual([1, 1]);
      expect(log.appended).toEqual(names(0, 2));
    });

    it('retries a failed batch with the bytes it was serialised to, in order', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { maxBatch: 2, maxDelayMs: 1 });
      log.failNext = 1;
      for (let index = 0; index < 5; index++) publisher.publish(event(index));
      await until(() => publisher.depth === 0);
      expect(log.appended).toEqual(names(0, 5));
      expect(log.serializedSizes).toEqual([2, 2, 1]);
      // The failed first batch was sent twice, as the same bytes.
      expect(log.appendedTexts).toEqual([log.serialized[0], ...log.serialized]);
    });

    it('retries a failed append of several batches whole, with the same bytes, in order', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { serializedBatch: 2, maxBatch: 10, maxDelayMs: 1 });
      log.failNext = 1;
      for (let index = 0; index < 5; index++) publisher.publish(event(index));
      await until(() => publisher.depth === 0);
      expect(log.serializedSizes).toEqual([2, 2, 1]);
      expect(log.appendedTexts).toEqual([...log.serialized, ...log.serialized]);
      expect(log.batches.map((batch) => batch.length)).toEqual([5]);
      expect(log.appended).toEqual(names(0, 5));
    });

    it('keeps events it cannot serialise queued, reports it, and appends them once it can', async () => {
      const log = new SerializingLog();
      const errors: unknown[] = [];
      const publisher = new EventPublisher(log, { maxDelayMs: 1, onError: (error) => errors.push(error) });
      const serialize = log.serialize.bind(log);
      let refusals = 2;
      log.serialize = (events) => {
        if (refusals-- > 0) throw new TypeError('Do not know how to serialize a BigInt');
        return serialize(events);
      };
      publisher.publish(event(0), event(1));
      await until(() => publisher.depth === 0);
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(log.appended).toEqual(['c0', 'c1']);
    });

    it('close() drains serialised batches and what is still queued', async () => {
      const log = new SerializingLog();
      const publisher = new EventPublisher(log, { maxBatch: 3, maxDelayMs: 60_000 });
      for (let index = 0; index < 8; index++) publisher.publish(event(index));
      await publisher.close(2_000);
      expect(publisher.depth).toBe(0);
      expect(log.appended).toEqual(names(0, 8));
    });
  });

  describe('with a log that asks for an interval between appends', () => {
    it('starts appends no closer together than the interval, so steady traffic goes in fewer, larger ones', async () => {
      const starts: number[] = [];
      const log = new FakeLog();
      const paced: EventLog = {
        appendIntervalMs: 40,
        append(events) {
          starts.push(performance.now());
          return log.append(events);
        },
      };
      const publisher = new EventPublisher(paced, { maxDelayMs: 1 });
      // One event every 2 ms for 200 ms: with no interval, about one append per event.
      for (let index = 0; index < 100; index++) {
        publisher.publish(event(index));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await publisher.close();
      expect(log.appended).toEqual(names(0, 100));
      const gaps = starts.slice(1).map((start, index) => start - starts[index]!);
      // Timers fire up to a millisecond early on some platforms.
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(39);
      expect(log.batches.length).toBeLessThanOrEqual(Math.ceil((starts.at(-1)! - starts[0]!) / 39) + 1);
      expect(log.batches.length).toBeGreaterThan(1);
    });

    it('appends a full batch at once, without waiting for the interval', async () => {
      const log = new FakeLog();
      const paced: EventLog = { appendIntervalMs: 10_000, append: (events) => log.append(events) };
      const publisher = new EventPublisher(paced, { maxBatch: 10, maxDelayMs: 1 });
      for (let index = 0; index < 30; index++) publisher.publish(event(index));
      await until(() => publisher.depth === 0, 1_000);
      expect(log.batches.map((batch) => batch.length)).toEqual([10, 10, 10]);
    });
  });
});
