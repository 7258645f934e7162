/**
 * The relay is paced by its event log: below the soft mark a request goes at once; above it the
 * request waits and goes, in arrival order, as the queue drains; at the hard mark (counting the
 * waiting requests' events) or after waiting too long it is refused with 503 event_log_behind. The
 * log's writer is told to hurry before anyone waits, and told to calm down once the queue stays low.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BacklogAdmission } from './backlog-admission.ts';
import { GatewayError } from './errors.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function refusalOf(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('not refused');
}

describe('BacklogAdmission', () => {
  it('lets a request go at once, with nothing to await, while the queue is low', () => {
    const urgency: boolean[] = [];
    const admission = new BacklogAdmission({
      depth: () => 10,
      limit: 1_000,
      onUrgency: (urgent) => urgency.push(urgent),
    });
    expect(admission.admit()).toBeNull();
    expect(urgency).toEqual([]);
  });

  it('holds requests above the soft mark and lets them go in arrival order as the queue drains', async () => {
    let depth = 250;
    const admission = new BacklogAdmission({ depth: () => depth, limit: 1_000, softLimit: 200 });
    const order: number[] = [];
    // Each request let go publishes its event (as a relayed request does when it ends).
    const served = (index: number) => () => {
      order.push(index);
      depth += 1;
    };
    const held = [0, 1, 2].map((index) => admission.admit()!.then(served(index)));
    expect(admission.waiting).toBe(3);
    await sleep(20);
    expect(order).toEqual([]);
    // Room for two requests' events (one each) below the mark.
    depth = 198;
    await sleep(20);
    expect(order).toEqual([0, 1]);
    // A newcomer queues behind the one still waiting, even below the mark.
    depth = 0;
    const late = admission.admit();
    expect(late).not.toBeNull();
    await Promise.all([...held, late!.then(served(3))]);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('refuses with 503 event_log_behind and retry-after when the queue and the waiting reach the hard mark', () => {
    const admission = new BacklogAdmission({ depth: () => 990, limit: 1_000, softLimit: 200 });
    for (let index = 0; index < 10; index++) void admission.admit()!.catch(() => {});
    // 990 queued + 10 waiting × 1 event = 1,000: the hard mark.
    const refusal = refusalOf(() => admission.admit());
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal.status).toBe(503);
    expect(refusal.code).toBe('event_log_behind');
    expect(refusal.headers).toEqual({ 'retry-after': '1' });
    expect(admission.waiting).toBe(10);
  });

  it('refuses a request that has waited longer than maxWaitMs', async () => {
    const admission = new BacklogAdmission({ depth: () => 500, limit: 1_000, softLimit: 200, maxWaitMs: 30 });
    const outcome = await admission.admit()!.then(
      () => 'admitted',
      (error: GatewayError) => `${error.status} ${error.code} ${error.message}`,
    );
    expect(outcome).toMatch(/^503 event_log_behind .*waited too long/);
    expect(admission.waiting).toBe(0);
  });

  // The calm periods are timed on a fake clock (setTimeout and performance.now), so that what takes
  // seconds of real time takes none.
  const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tells the log to hurry at half the soft mark, before anyone waits, and to calm down once the queue stays low', async () => {
    fakeClock();
    let depth = 120;
    const urgency: boolean[] = [];
    const admission = new BacklogAdmission({
      depth: () => depth,
      limit: 1_000,
      softLimit: 200,
      onUrgency: (urgent) => urgency.push(urgent),
    });
    expect(admission.admit()).toBeNull();
    expect(urgency).toEqual([true]);
    depth = 0;
    await vi.advanceTimersByTimeAsync(600);
    expect(urgency).toEqual([true]);
    await vi.advanceTimersByTimeAsync(900);
    expect(urgency).toEqual([true, false]);
  });

  it('keeps the log urgent longer each time urgency comes back soon after it ended (a machine that stays busy)', async () => {
    fakeClock();
    let depth = 120;
    const urgency: Array<{ urgent: boolean; at: number }> = [];
    const admission = new BacklogAdmission({
      depth: () => depth,
      limit: 1_000,
      softLimit: 200,
      calmAfterMs: 100,
      onUrgency: (urgent) => urgency.push({ urgent, at: performance.now() }),
    });
    const calmPeriod = async () => {
      depth = 120;
      expect(admission.admit()).toBeNull();
      const start = performance.now();
      depth = 0;
      while (urgency.at(-1)!.urgent) await vi.advanceTimersByTimeAsync(20);
      return urgency.at(-1)!.at - start;
    };
    const first = await calmPeriod();
    const second = await calmPeriod(); // urgent again at once: the next calm period is twice as long
    const third = await calmPeriod();
    expect(first).toBeLessThan(400);
    expect(second).toBeGreaterThanOrEqual(200);
    expect(third).toBeGreaterThanOrEqual(400);
    await vi.advanceTimersByTimeAsync(4_500); // well past ten calm periods: urgency that comes back now is a new episode
    expect(await calmPeriod()).toBeLessThan(400);
  });
});
