/**
 * The lookups' documents in Redis, applied a batch at a time (one read of every document, the scripts
 * pipelined in log order) hold what applying the same events one at a time holds, on a real Redis:
 * documents, their indexes and key-hash lookups, a revoked key included; a replay changes nothing.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();
const run = Date.now().toString(36);

/** Three keys' lives interleaved with their account's: issued, renamed, limited, one revoked. */
function log(): GatewayEvent[] {
  const events: GatewayEvent[] = [
    newEvent('user.registered', { userId: 'u1', email: 'a@example.com', name: 'A', passwordHash: 'h', role: 'user' }),
  ];
  for (let key = 0; key < 3; key++)
    events.push(
      newEvent('token.issued', {
        tokenId: `k${key}`,
        userId: 'u1',
        name: `key ${key}`,
        keyHash: `hash-${key}`,
        keyHint: 'sk-abcd…wxyz',
        expiresAt: null,
        quota: null,
        models: [],
      }),
    );
  for (let rename = 0; rename < 4; rename++)
    for (let key = 0; key < 3; key++)
      events.push(newEvent('token.updated', { tokenId: `k${key}`, userId: 'u1', name: `key ${key} rename ${rename}` }));
  events.push(newEvent('token.updated', { tokenId: 'k1', userId: 'u1', quota: 500 }));
  events.push(newEvent('user.updated', { userId: 'u1', name: 'A again' }));
  events.push(newEvent('token.revoked', { tokenId: 'k2', userId: 'u1' }));
  return events;
}

describe.skipIf(services === null)('documents in Redis, a batch at a time', () => {
  let redis: Redis;
  const stored = async (keys: RedisKeys) => {
    const found: Record<string, string | null> = {};
    for (const key of ['k0', 'k1', 'k2']) {
      found[`doc:${key}`] = await redis.get(keys.document('tokens', key));
      found[`hash:${key}`] = await redis.get(keys.keyHash(`hash-${key}`));
    }
    found['user'] = await redis.get(keys.document('users', 'u1'));
    found['email'] = await redis.get(keys.email('a@example.com'));
    found['tokens'] = JSON.stringify((await redis.sMembers(keys.index('tokens'))).sort());
    return found;
  };

  beforeAll(async () => {
    redis = createClient({ url: services!.redisUrl }) as Redis;
    await redis.connect();
  });

  afterAll(async () => {
    for await (const found of redis.scanIterator({ MATCH: `documents-${run}-*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
  });

  it('holds what one event at a time holds, and a replay changes nothing', async () => {
    const events = log();
    const single = new RedisKeys(`documents-${run}-single:`);
    const oneWriter = new RedisProjectionWriter(redis, single);
    for (const event of events) await oneWriter.apply([event]);
    const batched = new RedisKeys(`documents-${run}-batched:`);
    const batchWriter = new RedisProjectionWriter(redis, batched);
    const changes = await batchWriter.apply(events);
    expect(changes).toHaveLength(events.length);
    const expected = await stored(single);
    expect(await stored(batched)).toEqual(expected);
    expect(JSON.parse(expected['doc:k2']!)).toMatchObject({ revoked: true });
    expect(JSON.parse(expected['doc:k1']!)).toMatchObject({ name: 'key 1 rename 3', quota: 500 });
    expect(await batchWriter.apply(events)).toEqual([]);
    expect(await stored(batched)).toEqual(expected);
  });
});
