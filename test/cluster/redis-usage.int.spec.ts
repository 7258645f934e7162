/**
 * Key usage in Redis, written a batch at a time: each request's tokens counted once however often
 * its events are applied (a redelivered batch, two overlapping batches), and a key's last use only
 * moving forward, on a real Redis.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { addSpend, type SpendCounters } from '../../projector/read-models/spend/spend.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisLookups } from '../../stores/cluster/redis-lookups.ts';
import { RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();

function requestEvents(
  requestId: string,
  tokenId: string,
  startedAt: string,
  tokens: number,
  costNanoUsd: number | null = null,
  userId = 'user-1',
): GatewayEvent[] {
  const completed = newEvent('request.completed', {
    requestId,
    userId,
    tokenId,
    endpoint: 'chat.completions',
    modelRequested: 'gpt-4o-mini',
    modelServed: 'gpt-4o-mini',
    channelId: 'channel-1',
    stream: false,
    status: 200,
    errorType: null,
    errorMessage: null,
    startedAt,
    latencyMs: 12,
    firstTokenMs: null,
    clientAborted: false,
  });
  if (tokens === 0) return [completed];
  const usage = newEvent('usage.recorded', {
    requestId,
    userId,
    tokenId,
    channelId: 'channel-1',
    model: 'gpt-4o-mini',
    startedAt,
    promptTokens: tokens - 1,
    completionTokens: 1,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    source: 'upstream',
    costNanoUsd,
    price: null,
  });
  return [completed, usage];
}

describe.skipIf(services === null)('key usage in Redis', () => {
  const keys = new RedisKeys(`redis-usage-${Date.now()}:`);
  let redis: Redis;
  let writer: RedisProjectionWriter;

  beforeAll(async () => {
    redis = createClient({ url: services!.redisUrl }) as Redis;
    await redis.connect();
    writer = new RedisProjectionWriter(redis, keys);
  });

  afterAll(async () => {
    for await (const found of redis.scanIterator({ MATCH: `${keys.prefix}*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
  });

  it('counts every request once, across replays and batches larger than one script call', async () => {
    const events: GatewayEvent[] = [];
    // 1,200 requests on two keys: more than two script calls' worth; every third one without tokens.
    for (let index = 0; index < 1200; index++) {
      const tokenId = index % 2 === 0 ? 'key-a' : 'key-b';
      const startedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
      events.push(...requestEvents(`request-${index}`, tokenId, startedAt, index % 3 === 0 ? 0 : 10));
    }
    const expectedA = 600 * 10 - 200 * 10;
    const expectedB = 600 * 10 - 200 * 10;
    const first = await writer.apply(events);
    expect(
      first
        .filter((change) => change.collection === 'usage')
        .map((change) => change.id)
        .sort(),
    ).toEqual(['key-a', 'key-b']);
    // Redelivered whole, and again overlapping with half of it.
    const replay = await writer.apply(events);
    await writer.apply(events.slice(events.length / 2));
    expect(replay.filter((change) => change.collection === 'usage')).toEqual([]);
    const usageA = await redis.hGetAll(keys.usage('key-a'));
    const usageB = await redis.hGetAll(keys.usage('key-b'));
    expect(Number(usageA['used'])).toBe(expectedA);
    expect(Number(usageB['used'])).toBe(expectedB);
    expect(usageA['lastUsedAt']).toBe(new Date(Date.UTC(2026, 0, 1, 0, 0, 1198)).toISOString());
    expect(usageB['lastUsedAt']).toBe(new Date(Date.UTC(2026, 0, 1, 0, 0, 1199)).toISOString());
  });

  it('keeps a request’s marker for 7 days, at the size the README tells operators to plan for', async () => {
    const requestId = '019a7c3e-5b1f-7000-8000-000000000007';
    await writer.apply(requestEvents(requestId, 'key-m', new Date(Date.UTC(2026, 1, 1)).toISOString(), 3));
    const marker = keys.applied(requestId);
    const week = 7 * 24 * 3600;
    const ttl = await redis.ttl(marker);
    expect(ttl).toBeGreaterThan(week - 60);
    expect(ttl).toBeLessThanOrEqual(week);
    // docs/operations.md's "about 150 bytes each": MEMORY USAGE of a marker with this prefix, which leaves
    // out its entry in the expiry table (about 30 bytes more).
    const bytes = await redis.memoryUsage(marker);
    expect(bytes).toBeGreaterThan(60);
    expect(bytes).toBeLessThanOrEqual(160);
  });

  it('applies several batches at once as it applies their events in one batch (the projector’s write)', async () => {
    const events: GatewayEvent[] = [];
    // 700 requests over two keys and two users, with costs: the script calls of 500 requests each
    // cross the batches' boundaries.
    for (let index = 0; index < 700; index++) {
      const startedAt = new Date(Date.UTC(2026, 2, 1, 0, 0, index)).toISOString();
      const [tokenId, userId] = index % 2 === 0 ? ['key-j1', 'user-j1'] : ['key-j2', 'user-j2'];
      events.push(...requestEvents(`merged-${index}`, tokenId, startedAt, index % 5 === 0 ? 0 : 4, 10, userId));
    }
    const cuts = [0, 301, 302, 950, events.length];
    const batches = cuts.slice(1).map((end, index) => writer.batchOf(events.slice(cuts[index], end)));
    const changes = await writer.applyBatches(batches);
    expect(changes.map((change) => `${change.collection}:${change.id}`).sort()).toEqual([
      'usage:key-j1',
      'usage:key-j2',
      'user-spend:user-j1',
      'user-spend:user-j2',
    ]);
    // Replayed batch by batch, as a redelivery after a crash would: nothing counts twice.
    for (const batch of batches) expect(await writer.applyBatches([batch])).toEqual([]);
    const counted = 700 - 140;
    for (const [tokenId, userId, last] of [
      ['key-j1', 'user-j1', 698],
      ['key-j2', 'user-j2', 699],
    ] as const) {
      const usage = await redis.hGetAll(keys.usage(tokenId));
      expect(Number(usage['used'])).toBe((counted / 2) * 4);
      expect(usage['lastUsedAt']).toBe(new Date(Date.UTC(2026, 2, 1, 0, 0, last)).toISOString());
      expect(Number((await redis.hGetAll(keys.userSpend(userId)))['total:nano'])).toBe((counted / 2) * 10);
    }
  });

  it('moves a key’s last use forward only, whatever order its requests arrive in', async () => {
    const late = requestEvents('request-late', 'key-c', '2026-02-01T00:00:00.000Z', 5);
    const early = requestEvents('request-early', 'key-c', '2026-01-01T00:00:00.000Z', 0);
    await writer.apply([...late, ...early]);
    await writer.apply(early);
    const usage = await redis.hGetAll(keys.usage('key-c'));
    expect(usage).toEqual({ used: '5', lastUsedAt: '2026-02-01T00:00:00.000Z' });
  });

  it('folds each request’s cost once into its key’s and its account’s spend per period, as the embedded store does', async () => {
    const costs: Array<[string, number | null]> = [
      ['2026-01-30T10:00:00.000Z', 1000],
      ['2026-01-31T23:59:59.000Z', 250],
      ['2026-02-01T00:00:00.000Z', 40],
      ['2026-02-01T08:00:00.000Z', null],
      ['2026-02-01T09:00:00.000Z', 2],
    ];
    const events = costs.flatMap(([startedAt, cost], index) =>
      requestEvents(`spend-${index}`, 'key-s', startedAt, 3, cost),
    );
    // Out of order and replayed: the counters do not depend on either.
    await writer.apply([...events.slice(4), ...events.slice(0, 4)]);
    await writer.apply(events);
    const subscriber = createClient({ url: services!.redisUrl }) as Redis;
    await subscriber.connect();
    const lookups = new RedisLookups(redis, subscriber, keys);
    await lookups.reloadUsage('key-s');
    await lookups.reloadUserSpend('user-1');
    await subscriber.quit();
    let expected: SpendCounters | undefined;
    for (const [startedAt, cost] of costs) if (cost) expected = addSpend(expected, Date.parse(startedAt), cost);
    expect(lookups.spend('token:key-s')).toEqual(expected);
    expect(lookups.spend('user:user-1')).toEqual(expected);
    expect(expected).toMatchObject({
      total: { nanoUsd: 1292 },
      daily: { start: '2026-02-01', nanoUsd: 42 },
      weekly: { start: '2026-01-26', nanoUsd: 1292 },
      monthly: { start: '2026-02', nanoUsd: 42 },
    });
  });

  it('sums a batch in the script as one request at a time would: 1,500 requests over days, keys and replays', async () => {
    // Random costs over three keys of one account and six days spanning a week's and a month's end,
    // in a shuffled order and three script calls, then a replay of a third of them.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const requests = Array.from({ length: 1500 }, (_, index) => ({
      id: `mixed-${index}`,
      tokenId: `key-m${index % 3}`,
      startedAt: new Date(Date.UTC(2026, 1, 26 + Math.floor(random() * 6), Math.floor(random() * 24))).toISOString(),
      tokens: 1 + Math.floor(random() * 50),
      cost: random() < 0.2 ? null : Math.floor(random() * 1_000_000_000),
    }));
    const events = requests.flatMap((request) =>
      requestEvents(request.id, request.tokenId, request.startedAt, request.tokens, request.cost, 'user-mixed'),
    );
    const shuffled = [...events].sort(() => random() - 0.5);
    await writer.apply(shuffled);
    await writer.apply(shuffled.slice(0, 1000));
    const subscriber = createClient({ url: services!.redisUrl }) as Redis;
    await subscriber.connect();
    const lookups = new RedisLookups(redis, subscriber, keys);
    let account: SpendCounters | undefined;
    const byKey = new Map<string, SpendCounters | undefined>();
    for (const request of requests) {
      if (!request.cost) continue;
      byKey.set(request.tokenId, addSpend(byKey.get(request.tokenId), Date.parse(request.startedAt), request.cost));
      account = addSpend(account, Date.parse(request.startedAt), request.cost);
    }
    for (const tokenId of ['key-m0', 'key-m1', 'key-m2']) {
      await lookups.reloadUsage(tokenId);
      expect(lookups.spend(`token:${tokenId}`)).toEqual(byKey.get(tokenId));
      const used = requests.filter((request) => request.tokenId === tokenId).reduce((sum, r) => sum + r.tokens, 0);
      expect(Number((await redis.hGetAll(keys.usage(tokenId)))['used'])).toBe(used);
    }
    await lookups.reloadUserSpend('user-mixed');
    expect(lookups.spend('user:user-mixed')).toEqual(account);
    expect(account?.monthly.start).toBe('2026-03');
    await subscriber.quit();
  });
});
