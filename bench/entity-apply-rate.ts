/**
 * @module bench/entity-apply-rate
 * How fast the projector's Redis writer applies events that are not traffic, the part of a log that a
 * rebuild or a catch-up applies through scripts per event: EVENTS stored responses (`response.stored`,
 * 50 accounts), then EVENTS document events (200 keys issued, then renamed in turn), each kind as one
 * batch on the shared Redis under a prefix of its own, which it deletes afterwards. Prints events/s.
 *
 *   eval "$(scripts/services up)"; npx tsx bench/entity-apply-rate.ts   (EVENTS, default 5,000)
 */
import { createClient } from 'redis';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { newEvent } from '../gateway/events/new-event.ts';
import { type Redis, RedisKeys } from '../stores/cluster/redis-keys.ts';
import { RedisProjectionWriter } from '../stores/cluster/redis-projection-writer.ts';

const EVENTS = Number(process.env['EVENTS'] ?? 5_000);

function storedResponse(index: number): GatewayEvent {
  return newEvent('response.stored', {
    responseId: `resp_${index}`,
    userId: `u${index % 50}`,
    tokenId: 't1',
    requestId: `r${index}`,
    previousResponseId: null,
    channelId: 'c1',
    channelType: 'openai',
    native: false,
    model: 'gpt-4o-mini',
    status: 'completed',
    createdAt: Math.floor(Date.now() / 1000),
    usage: { inputTokens: 1, outputTokens: 2 },
    inputItems: [{ type: 'message', role: 'user', content: `question ${index}` }],
    outputItems: [{ type: 'message', role: 'assistant', content: [] }],
    settings: { id: `resp_${index}` },
  });
}

function tokenEvent(index: number): GatewayEvent {
  if (index < 200)
    return newEvent('token.issued', {
      tokenId: `key${index}`,
      userId: 'u1',
      name: 'key',
      keyHash: `hash${index}`,
      keyHint: 'sk-abcd…wxyz',
      expiresAt: null,
      quota: null,
      models: [],
    });
  return newEvent('token.updated', { tokenId: `key${index % 200}`, userId: 'u1', name: `key ${index}` });
}

async function main(): Promise<void> {
  const url = process.env['REDIS_URL'];
  if (!url) throw new Error('REDIS_URL is not set');
  const redis = createClient({ url }) as Redis;
  await redis.connect();
  const keys = new RedisKeys(`entity-apply-${Date.now().toString(36)}:`);
  const writer = new RedisProjectionWriter(redis, keys);
  try {
    for (const [name, make] of [
      ['stored responses', storedResponse],
      ['documents', tokenEvent],
    ] as const) {
      const events = Array.from({ length: EVENTS }, (_, index) => make(index));
      const started = performance.now();
      await writer.apply(events);
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `${name}: ${EVENTS} events in ${seconds.toFixed(2)} s, ${Math.round(EVENTS / seconds)} events/s\n`,
      );
    }
  } finally {
    for await (const found of redis.scanIterator({ MATCH: `${keys.prefix}*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
  }
}

await main();
