/**
 * Key usage in Redis, written a batch at a time: each request's tokens counted once however often
 * its events are applied from the same log positions (a redelivered batch, two overlapping batches),
 * with one key per partition and none per request, and a key's last use only moving forward, on a
 * real Redis.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { addSpend, type SpendCounters } from '../../projector/read-models/spend/spend.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisLookups } from '../../stores/cluster/redis-lookups.ts';
import { countUsageScript } from '../../stores/cluster/redis-projection-scripts.ts';
import { type LogPlace, logPosition, RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
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

/** `events` as one message each from `first` on in partition 0 of `topic`: their place in the log. */
function inLog(topic: string, events: readonly GatewayEvent[], first = 0): LogPlace {
  return { topic, partition: 0, positions: events.map((_, index) => logPosition(String(first + index), 0)) };
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
    const first = await writer.apply(events, inLog('counts', events));
    expect(
      first
        .filter((change) => change.collection === 'usage')
        .map((change) => change.id)
        .sort(),
    ).toEqual(['key-a', 'key-b']);
    // Redelivered whole, and again overlapping with half of it.
    const replay = await writer.apply(events, inLog('counts', events));
    await writer.apply(
      events.slice(events.length / 2),
      inLog('counts', events.slice(events.length / 2), events.length / 2),
    );
    expect(replay.filter((change) => change.collection === 'usage')).toEqual([]);
    const usageA = await redis.hGetAll(keys.usage('key-a'));
    const usageB = await redis.hGetAll(keys.usage('key-b'));
    expect(Number(usageA['used'])).toBe(expectedA);
    expect(Number(usageB['used'])).toBe(expectedB);
    expect(usageA['lastUsedAt']).toBe(new Date(Date.UTC(2026, 0, 1, 0, 0, 1198)).toISOString());
    expect(usageB['lastUsedAt']).toBe(new Date(Date.UTC(2026, 0, 1, 0, 0, 1199)).toISOString());
  });

  it('keeps one key per partition and none per request: 2,000 more requests add no key', async () => {
    const countKeys = async () => {
      let count = 0;
      for await (const found of redis.scanIterator({ MATCH: `${keys.prefix}*`, COUNT: 1000 }))
        count += Array.isArray(found) ? found.length : 1;
      return count;
    };
    const requestsOf = (from: number) =>
      Array.from({ length: 1000 }, (_, index) =>
        requestEvents(`flat-${from + index}`, 'key-flat', '2026-02-01T00:00:00.000Z', 3, 5, 'user-flat'),
      ).flat();
    const first = requestsOf(0);
    await writer.apply(first, inLog('flat', first));
    const before = await countKeys();
    const more = [...requestsOf(1000), ...requestsOf(2000)];
    await writer.apply(more, inLog('flat', more, first.length));
    expect(await countKeys()).toBe(before);
    expect(Number((await redis.hGetAll(keys.usage('key-flat')))['used'])).toBe(3000 * 3);
    expect(await redis.get(keys.usageOffset('flat', 0))).toBe(logPosition(String(first.length + more.length - 1), 0));
  });

  it('counts a batch delivered again after a crash before its offsets were committed once, and the requests after it', async () => {
    const events = Array.from({ length: 150 }, (_, index) =>
      requestEvents(`again-${index}`, 'key-again', '2026-02-01T00:00:00.000Z', 2),
    ).flat();
    // Applied up to the 100th request, then the consumer starts again from the 50th: requests 50 to
    // 99 were counted before the crash, 100 to 149 were not.
    await writer.apply(events.slice(0, 200), inLog('again', events.slice(0, 200)));
    const changes = await writer.apply(events.slice(100), inLog('again', events.slice(100), 100));
    expect(changes.map((change) => change.collection)).toEqual(['usage']);
    expect(Number((await redis.hGetAll(keys.usage('key-again')))['used'])).toBe(150 * 2);
  });

  it('refuses a chunk whose earlier chunk of the same write did not run, and writes nothing of it', async () => {
    const starts = ['2026-02-01T00:00:00.000Z', '2026-01-26T00:00:00.000Z', '2026-02-01T00:00:00.000Z'];
    const offsetKey = keys.usageOffset('refused', 0);
    const chunk = (position: string, before: string) =>
      redis.eval(countUsageScript, {
        keys: [offsetKey, keys.usage('key-refused'), keys.userSpend('user-refused')],
        arguments: ['7', '2026-02-01T00:00:00.000Z', '0', ...starts, position, before],
      });
    // The chunk before ended at position 10, which the partition's offset has not reached.
    await expect(chunk(logPosition('11', 0), logPosition('10', 0))).rejects.toThrow(/earlier chunk did not run/);
    expect(await redis.exists([offsetKey, keys.usage('key-refused')])).toBe(0);
    expect(await chunk(logPosition('10', 0), '')).toEqual([1]);
    expect(await chunk(logPosition('11', 0), logPosition('10', 0))).toEqual([1]);
    expect(await chunk(logPosition('11', 0), logPosition('10', 0))).toEqual([0]);
    expect(Number(await redis.hGet(keys.usage('key-refused'), 'used'))).toBe(14);
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
    const place = inLog('merged', events);
    const batches = cuts.slice(1).map((end, index) =>
      writer.batchOf(events.slice(cuts[index], end), {
        ...place,
        positions: place.positions.slice(cuts[index], end),
      }),
    );
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
    const log = [...late, ...early];
    await writer.apply(log, inLog('last-use', log));
    await writer.apply(early, inLog('last-use', early, late.length));
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
    const log = [...events.slice(4), ...events.slice(0, 4)];
    await writer.apply(log, inLog('spend', log));
    await writer.apply(log, inLog('spend', log));
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
    await writer.apply(shuffled, inLog('mixed', shuffled));
    await writer.apply(shuffled.slice(0, 1000), inLog('mixed', shuffled.slice(0, 1000)));
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
