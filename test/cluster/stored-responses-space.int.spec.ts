/**
 * What an account's stored responses weigh in Redis, on a real Redis: counted once however often
 * the projector and a node's write-through apply the same events, taken off by a deletion (once,
 * and only the owner's), dropped with the day the responses lapse on (an injected clock), and each
 * document expiring with the configured retention.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import type { Redis } from '../../stores/cluster/redis-keys.ts';
import { RedisResponses } from '../../stores/cluster/redis-responses.ts';
import { storedResponseEvent } from '../support/request-events.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();
const DAY_MS = 86_400_000;

const stored = (responseId: string, userId: string, at: Date) =>
  storedResponseEvent(responseId, 'x'.repeat(10_000), { userId, at, outputItems: [] });

describe.skipIf(services === null)('cluster: the bytes of stored responses in Redis', () => {
  const prefix = `stored-space-${Date.now().toString(36)}:`;
  let redis: Redis;

  beforeAll(async () => {
    redis = createClient({ url: services!.redisUrl }) as Redis;
    await redis.connect();
  });

  afterAll(async () => {
    for await (const found of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
  });

  it('weighs each account once, takes a deletion off once, and drops lapsed days', async () => {
    const responses = new RedisResponses(redis, prefix, 2 * DAY_MS);
    const now = Date.now();
    const events = [
      stored('resp_a', 'u1', new Date(now)),
      stored('resp_b', 'u1', new Date(now - DAY_MS)),
      stored('resp_c', 'u2', new Date(now)),
    ];
    // The node's write-through and the projector: the same events twice.
    await responses.apply(events, now);
    await responses.apply(events, now);
    const one = (await responses.storedBytes('u2', now)) as number;
    expect(one).toBeGreaterThan(10_000);
    expect(await responses.storedBytes('u1', now)).toBe(2 * one);
    // Documents expire with the retention, not the default 30 days.
    const ttl = await redis.pTTL(`${prefix}response:resp_a`);
    expect(ttl).toBeGreaterThan(2 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * DAY_MS);

    const deletions = [
      newEvent('response.deleted', { responseId: 'resp_a', userId: 'u1' }),
      newEvent('response.deleted', { responseId: 'resp_c', userId: 'u1' }),
    ];
    await responses.apply(deletions, now);
    await responses.apply(deletions, now);
    expect(await responses.storedBytes('u1', now)).toBe(one);
    // Another account's deletion takes nothing off u2.
    expect(await responses.storedBytes('u2', now)).toBe(one);
    // resp_b lapses a day before resp_c: two days on, its day is over and no longer counted.
    expect(await responses.storedBytes('u1', now + 2 * DAY_MS)).toBe(0);
    expect(await responses.storedBytes('u2', now + 2 * DAY_MS)).toBe(one);
  });
});
