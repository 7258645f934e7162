/**
 * The queue every password hash goes through: a few at a time, clients taken in turn, and bounded, so
 * one client's flood can neither hold the thread pool nor push another client's sign-in far back.
 */
import { describe, expect, it } from 'vitest';
import { FairWorkQueue, WorkQueueFullError } from '../../gateway/security/fair-work-queue.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function queue(overrides: Partial<ConstructorParameters<typeof FairWorkQueue>[0]> = {}) {
  return new FairWorkQueue({
    concurrency: 2,
    perClientWaiting: 50,
    totalWaiting: 100,
    maxWaitMs: 10_000,
    ...overrides,
  });
}

describe('FairWorkQueue', () => {
  it('never runs more than its concurrency at once', async () => {
    const work = queue();
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        work.run('flood', async () => {
          running += 1;
          most = Math.max(most, running);
          await pause(2);
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(work.running).toBe(0);
    expect(work.waiting).toBe(0);
  });

  it("serves a bystander's item after at most one turn, however much another client has queued", async () => {
    const work = queue();
    const order: string[] = [];
    const flood = Array.from({ length: 30 }, (_, index) =>
      work.run('attacker', async () => {
        await pause(1);
        order.push(`attacker-${index}`);
      }),
    );
    const bystander = work.run('bystander', async () => {
      order.push('bystander');
    });
    await Promise.all([...flood, bystander]);
    // Two attacker items were running and 28 waiting when the bystander arrived: it gets the second free
    // slot at the latest (the first may go to the attacker, whose turn it was), not the 29th.
    expect(order.indexOf('bystander')).toBeLessThanOrEqual(3);
  });

  it('refuses a client with too many items waiting (scope client), and the queue when it is full (scope server)', async () => {
    const work = queue({ perClientWaiting: 2, totalWaiting: 3 });
    const slow = () => pause(30);
    const accepted = [work.run('a', slow), work.run('a', slow), work.run('a', slow), work.run('a', slow)];
    const tooMany = work.run('a', slow);
    await expect(tooMany).rejects.toMatchObject({ name: 'WorkQueueFullError', scope: 'client' });
    accepted.push(work.run('b', slow));
    const full = work.run('c', slow);
    await expect(full).rejects.toBeInstanceOf(WorkQueueFullError);
    await expect(full).rejects.toMatchObject({ scope: 'server' });
    await Promise.all(accepted);
    // Nothing leaks: the refused items did not keep a slot or a place in the queue.
    expect([work.running, work.waiting]).toEqual([0, 0]);
    await expect(work.run('a', async () => 'after')).resolves.toBe('after');
  });

  it('gives up on an item that waited longer than maxWaitMs, and the others still run', async () => {
    const work = queue({ concurrency: 1, maxWaitMs: 20 });
    const long = work.run('a', () => pause(60));
    const starved = work.run('b', async () => 'ran');
    await expect(starved).rejects.toMatchObject({ scope: 'server' });
    await long;
    expect(work.waiting).toBe(0);
    await expect(work.run('b', async () => 'ran')).resolves.toBe('ran');
  });

  it('frees the slot of work that throws', async () => {
    const work = queue({ concurrency: 1 });
    await expect(
      work.run('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(work.run('a', async () => 1)).resolves.toBe(1);
    expect(work.running).toBe(0);
  });
});
