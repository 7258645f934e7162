/**
 * @module bench/usage-memory
 * What counting key usage exactly once keeps in Redis as traffic grows: REQUESTS requests (default 1
 * million) applied through the projector's Redis writer, as the projector writes them (a write of
 * BATCH requests, one slice per partition of the traffic topic, each request at its own log position),
 * over KEYS keys of USERS accounts. At every tenth it prints the keys under the bench's prefix, the sum
 * of their MEMORY USAGE, and Redis's used_memory, so that memory growing with requests would show as a
 * slope; and the rate the writer counted at. Runs on the shared Redis under a prefix of its own, which
 * it deletes afterwards.
 *
 *   eval "$(scripts/services up)"; npx tsx bench/usage-memory.ts   (REQUESTS, BATCH, KEYS, USERS, PARTITIONS)
 */
import { createClient } from 'redis';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { newEvent } from '../gateway/events/new-event.ts';
import { type Redis, RedisKeys } from '../stores/cluster/redis-keys.ts';
import { logPosition, RedisProjectionWriter } from '../stores/cluster/redis-projection-writer.ts';

const REQUESTS = Number(process.env['REQUESTS'] ?? 1_000_000);
const BATCH = Number(process.env['BATCH'] ?? 10_000);
const KEYS = Number(process.env['KEYS'] ?? 1_000);
const USERS = Number(process.env['USERS'] ?? 100);
const PARTITIONS = Number(process.env['PARTITIONS'] ?? 6);
const TOPIC = 'traffic-events';

function usageOf(index: number, startedAt: string): GatewayEvent {
  const key = index % KEYS;
  return newEvent('usage.recorded', {
    requestId: `bench-${index}`,
    userId: `user-${key % USERS}`,
    tokenId: `key-${key}`,
    channelId: 'channel-1',
    model: 'gpt-4o-mini',
    startedAt,
    promptTokens: 20,
    completionTokens: 11,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    source: 'upstream',
    costNanoUsd: 1_500,
    price: null,
  });
}

async function ownKeys(redis: Redis, prefix: string): Promise<{ keys: number; bytes: number }> {
  let keys = 0;
  let bytes = 0;
  for await (const found of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
    const list = Array.isArray(found) ? found : [found];
    keys += list.length;
    for (const key of list) bytes += (await redis.memoryUsage(key)) ?? 0;
  }
  return { keys, bytes };
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function main(): Promise<void> {
  const url = process.env['REDIS_URL'];
  if (!url) throw new Error('REDIS_URL is not set: eval "$(scripts/services up)" or source the services env');
  const redis = createClient({ url }) as Redis;
  await redis.connect();
  const keys = new RedisKeys(`usage-memory-${Date.now().toString(36)}:`);
  const writer = new RedisProjectionWriter(redis, keys);
  const nextOffset = Array.from({ length: PARTITIONS }, () => 0);
  const startMs = Date.UTC(2026, 0, 1);
  const rows: string[] = [];
  let writerMs = 0;
  const baseline = await usedMemory(redis);
  try {
    for (let done = 0; done < REQUESTS; ) {
      const size = Math.min(BATCH, REQUESTS - done);
      const slices: GatewayEvent[][] = Array.from({ length: PARTITIONS }, () => []);
      for (let index = done; index < done + size; index++)
        slices[index % PARTITIONS]!.push(usageOf(index, new Date(startMs + index * 10).toISOString()));
      const batches = slices.map((events, partition) => {
        const first = nextOffset[partition]!;
        nextOffset[partition] = first + events.length;
        const positions = events.map((_, index) => logPosition(String(first + index), 0));
        return writer.batchOf(events, { topic: TOPIC, partition, positions });
      });
      const started = performance.now();
      await writer.applyBatches(batches);
      writerMs += performance.now() - started;
      done += size;
      if (done % (REQUESTS / 10) === 0 || done === REQUESTS) {
        const own = await ownKeys(redis, keys.prefix);
        const used = (await usedMemory(redis)) - baseline;
        rows.push(
          `${String(done).padStart(9)}  ${String(own.keys).padStart(6)}  ${String(own.bytes).padStart(9)}  ${String(used).padStart(12)}`,
        );
        process.stdout.write(`${rows.at(-1)}\n`);
      }
    }
    const tokens = Number(await redis.hGet(keys.usage('key-0'), 'used'));
    const expected = Math.ceil(REQUESTS / KEYS) * 31;
    process.stdout.write(
      `\n${REQUESTS} requests over ${KEYS} keys, ${USERS} accounts, ${PARTITIONS} partitions, writes of ${BATCH}\n` +
        '  requests    keys  key bytes  used_memory Δ (whole server, shared)\n' +
        `${rows.join('\n')}\n` +
        `counted at ${Math.round(REQUESTS / (writerMs / 1000))} requests/s of the writer's time; key-0 used ${tokens} (expected ${expected})\n`,
    );
    if (tokens !== expected) throw new Error('key-0 was not counted exactly once per request');
  } finally {
    for await (const found of redis.scanIterator({ MATCH: `${keys.prefix}*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
  }
}

await main();
