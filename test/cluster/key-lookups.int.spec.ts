/**
 * A gateway node's key lookups in the cluster on a real Redis: a key hash the node has not seen is
 * asked of Redis before it is refused (a key created through another node a moment ago), and made-up
 * keys are refused without a Redis read per request (remembered as unknown for 2 s, read in batches).
 */
import type { IncomingMessage } from 'node:http';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { authenticateRequest } from '../../gateway/relay/authenticate.ts';
import { chatCompletionsEndpoint } from '../../gateway/relay/endpoints.ts';
import { GatewayError } from '../../gateway/relay/errors.ts';
import { generateApiKey, hashApiKey, hintOf } from '../../gateway/security/api-keys.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisLookups } from '../../stores/cluster/redis-lookups.ts';
import { RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();
const hashingKey = Buffer.alloc(32, 7);

function requestWith(key: string): IncomingMessage {
  return { headers: { authorization: `Bearer ${key}` }, socket: { remoteAddress: '127.0.0.1' } } as IncomingMessage;
}

async function statusOf(lookups: RedisLookups, key: string): Promise<number> {
  try {
    await authenticateRequest(requestWith(key), chatCompletionsEndpoint, { lookups, hashingKey });
    return 200;
  } catch (error) {
    if (error instanceof GatewayError) return error.status;
    throw error;
  }
}

/** Keys whose writer announces its changes on a channel the replica does not hear: only a miss finds them. */
class UnannouncedKeys extends RedisKeys {
  override get changes(): string {
    return `${this.prefix}unheard`;
  }
}

describe.skipIf(services === null)('cluster key lookups on a miss', () => {
  const keys = new RedisKeys(`key-lookups-${Date.now()}:`);
  const clients: Redis[] = [];
  let lookups: RedisLookups;
  let writer: RedisProjectionWriter;

  beforeAll(async () => {
    const connect = async () => {
      const client = createClient({ url: services!.redisUrl }) as Redis;
      await client.connect();
      clients.push(client);
      return client;
    };
    const [redis, subscriber, writerClient] = await Promise.all([connect(), connect(), connect()]);
    writer = new RedisProjectionWriter(writerClient, new UnannouncedKeys(keys.prefix));
    lookups = new RedisLookups(redis, subscriber, keys);
    await lookups.start();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => {})));
  });

  it('finds a key written to Redis after the node loaded its replica', async () => {
    const key = generateApiKey();
    await writer.apply([
      newEvent('token.issued', {
        tokenId: `token-${Date.now()}`,
        userId: 'user-1',
        name: 'fresh',
        keyHash: hashApiKey(key, hashingKey),
        keyHint: hintOf(key),
        expiresAt: null,
        quota: null,
        models: null,
      }),
    ]);
    expect(lookups.tokenByKeyHash(hashApiKey(key, hashingKey))).toBeUndefined();
    expect(await statusOf(lookups, key)).toBe(200);
  });

  it('answers a repeated made-up key 401 with one Redis read per 2 s, not one per request', async () => {
    const madeUp = generateApiKey();
    const before = lookups.keyHashes.reads;
    for (let index = 0; index < 300; index++) expect(await statusOf(lookups, madeUp)).toBe(401);
    expect(lookups.keyHashes.reads - before).toBe(1);
  });

  it('reads a flood of distinct made-up keys in batches, not one read each', async () => {
    const before = lookups.keyHashes.reads;
    const statuses = await Promise.all(Array.from({ length: 2_000 }, () => statusOf(lookups, generateApiKey())));
    expect(statuses.every((status) => status === 401)).toBe(true);
    expect(lookups.keyHashes.reads - before).toBeLessThanOrEqual(8);
  });
});
