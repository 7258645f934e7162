import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { ProjectionQueue } from './projection-queue.ts';

/** Stand-ins: the queue only counts and forwards batches, it never reads them; a batch and its size. */
const events = (count: number, tag: string) =>
  [
    Array.from({ length: count }, (_, index) => ({ eventId: `${tag}-${index}` }) as unknown as GatewayEvent),
    count,
  ] as const;

function controlledWrites() {
  const writes: Array<{ ids: string[]; startedAt: number; finish: () => void; fail: (error: Error) => void }> = [];
  const write = (batches: Array<readonly GatewayEvent[]>) =>
    new Promise<void>((resolve, reject) => {
      const ids = batches.flat().map((event) => event.eventId);
      writes.push({ ids, startedAt: performance.now(), finish: resolve, fail: reject });
    });
  return { writes, write };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ProjectionQueue', () => {
  it('writes the batches handed over together in one write, and the next ones in the following write', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 1_000);
    const first = queue.enqueue(...events(2, 'a'));
    const second = queue.enqueue(...events(3, 'b'));
    await tick();
    expect(writes.map((entry) => entry.ids.length)).toEqual([5]);
    const third = queue.enqueue(...events(1, 'c'));
    await tick();
    expect(writes).toHaveLength(1); // one write at a time
    writes[0]!.finish();
    await Promise.all([first.written, second.written]);
    await tick();
    expect(writes[1]!.ids).toEqual(['c-0']);
    writes[1]!.finish();
    await third.written;
    await queue.idle();
  });

  it('holds the caller back while more than maxQueuedEvents wait, and lets it go when a write takes them', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 10, 100);
    queue.enqueue(...events(4, 'a'));
    await tick(); // the write of a is under way
    expect(writes).toHaveLength(1);
    let accepted = false;
    void queue.enqueue(...events(12, 'b')).accepted.then(() => {
      accepted = true;
    });
    await tick();
    expect(accepted).toBe(false);
    writes[0]!.finish();
    await tick();
    await tick();
    expect(accepted).toBe(true);
    expect(writes[1]!.ids).toHaveLength(12);
    writes[1]!.finish();
    await queue.idle();
  });

  it('keeps a write within maxWriteEvents, whole batches only', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 5);
    queue.enqueue(...events(3, 'a'));
    queue.enqueue(...events(3, 'b'));
    queue.enqueue(...events(7, 'c'));
    await tick();
    writes[0]!.finish();
    await tick();
    writes[1]!.finish();
    await tick();
    writes[2]!.finish();
    await queue.idle();
    expect(writes.map((entry) => entry.ids.length)).toEqual([3, 3, 7]);
  });

  it('rejects the written promise of every batch of a failed write, so their offsets are not committed', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 1_000);
    const first = queue.enqueue(...events(1, 'a'));
    const second = queue.enqueue(...events(1, 'b'));
    await tick();
    writes[0]!.fail(new Error('ClickHouse is down'));
    await expect(first.written).rejects.toThrow('ClickHouse is down');
    await expect(second.written).rejects.toThrow('ClickHouse is down');
    await queue.idle();
  });

  it('under live traffic starts writes at most every minWriteIntervalMs, and what arrives meanwhile joins the next', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 1_000, 300);
    queue.enqueue(...events(2, 'a'));
    await tick();
    writes[0]!.finish();
    await tick();
    queue.enqueue(...events(1, 'b'));
    await tick();
    expect(writes).toHaveLength(1); // the interval has not passed
    queue.enqueue(...events(4, 'c'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(writes.map((entry) => entry.ids.length)).toEqual([2, 5]);
    // Less a millisecond: timers run on libuv's millisecond clock (see below).
    expect(writes[1]!.startedAt - writes[0]!.startedAt).toBeGreaterThanOrEqual(299);
    writes[1]!.finish();
    await queue.idle();
  });

  it('starts the next write ten times as long as a slow write took after it, so the writes keep the stores busy a tenth of the time', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 1_000, 50);
    queue.enqueue(...events(1, 'a'));
    await tick();
    // A write of 100 ms, twice the interval: the next starts about 1,000 ms after this one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    writes[0]!.finish();
    queue.enqueue(...events(1, 'b'));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(writes).toHaveLength(1);
    while (writes.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    // Timers run on libuv's millisecond clock, so each of the two waits may end up to a millisecond
    // before performance.now() says it should: 10 × 99 ms, not 1,000 (a CI run saw 999.6).
    expect(writes[1]!.startedAt - writes[0]!.startedAt).toBeGreaterThanOrEqual(989);
    // A quick write: back to the interval.
    writes[1]!.finish();
    await tick();
    queue.enqueue(...events(1, 'c'));
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(writes).toHaveLength(3);
    writes[2]!.finish();
    await queue.idle();
  });

  it('starts the next write at once when a whole write is queued (a backlog is not slowed)', async () => {
    const { writes, write } = controlledWrites();
    const queue = new ProjectionQueue(write, 1_000, 5, 60_000);
    queue.enqueue(...events(1, 'a'));
    await tick();
    writes[0]!.finish();
    await tick();
    queue.enqueue(...events(2, 'b'));
    await tick();
    expect(writes).toHaveLength(1);
    queue.enqueue(...events(3, 'c'));
    await tick();
    await tick();
    expect(writes.map((entry) => entry.ids.length)).toEqual([1, 5]);
    writes[1]!.finish();
    await queue.idle();
  });
});
