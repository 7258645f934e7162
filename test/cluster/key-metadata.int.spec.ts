/**
 * A key's default metadata on the cluster's shared lookups (a real Redis): issued and then changed
 * through the events, it reaches a node's key lookup, and the relay's attribution starts from it,
 * the request's own names overriding it.
 */
import type { IncomingMessage } from 'node:http';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { attributionOf } from '../../gateway/relay/attribution.ts';
import { authenticateRequest } from '../../gateway/relay/authenticate.ts';
import { chatCompletionsEndpoint } from '../../gateway/relay/endpoints.ts';
import { generateApiKey, hashApiKey, hintOf } from '../../gateway/security/api-keys.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisLookups } from '../../stores/cluster/redis-lookups.ts';
import { RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();
const hashingKey = Buffer.alloc(32, 9);

describe.skipIf(services === null)('a key’s default metadata in the cluster', () => {
  const keys = new RedisKeys(`key-metadata-${Date.now()}:`);
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
    writer = new RedisProjectionWriter(writerClient, keys);
    lookups = new RedisLookups(redis, subscriber, keys);
    await lookups.start();
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => {})));
  });

  it('reaches the node’s key lookup, and a request’s names override it', async () => {
    const key = generateApiKey();
    const tokenId = `token-${Date.now()}`;
    await writer.apply([
      newEvent('token.issued', {
        tokenId,
        userId: 'user-1',
        name: 'tagged',
        keyHash: hashApiKey(key, hashingKey),
        keyHint: hintOf(key),
        expiresAt: null,
        quota: null,
        models: null,
        metadata: { env: 'prod', team: 'search' },
      }),
      newEvent('token.updated', { tokenId, userId: 'user-1', metadata: { env: 'staging', team: 'search' } }),
    ]);
    const request = {
      headers: { authorization: `Bearer ${key}`, 'x-gateway-metadata': '{"team":"growth"}' },
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    const { token } = await authenticateRequest(request, chatCompletionsEndpoint, { lookups, hashingKey });
    expect(token.metadata).toEqual({ env: 'staging', team: 'search' });
    expect(attributionOf('chat.completions', request.headers, {}, token.metadata)).toEqual({
      metadata: { env: 'staging', team: 'growth' },
    });
  });
});
