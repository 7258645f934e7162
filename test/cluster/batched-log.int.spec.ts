/**
 * The event log's two message formats on a real Kafka, ClickHouse and Redis: topics holding messages
 * of the release before (one event each) and batched appends of this one (format 2, several events
 * per message, appended as events or as the publisher's batches printed ahead) are projected with
 * every request counted exactly once, also when the whole log is delivered a second time (a batch a
 * node may have sent twice is settled before it is sent again: outbox-doubt.int.spec.ts); an entity's events written in both formats apply in order; and a rebuild
 * from the topics reproduces the same totals.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { ClusterProjector } from '../../projector/cluster-projector.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import {
  type ClusterSettings,
  connectKafka,
  connectRedis,
  ensureTopics,
  migrateClickHouse,
} from '../../stores/cluster/connections.ts';
import { kafkaChecksum } from '../../stores/cluster/kafka-client.ts';
import { KafkaEventLog, type TopicNames, topicNames } from '../../stores/cluster/kafka-event-log.ts';
import { Outbox } from '../../stores/cluster/outbox.ts';
import { refuseDoubt } from '../../stores/cluster/outbox-doubt.ts';
import { rebuildCluster } from '../../stores/cluster/rebuild.ts';
import { type Redis, RedisKeys } from '../../stores/cluster/redis-keys.ts';
import { RedisProjectionWriter } from '../../stores/cluster/redis-projection-writer.ts';
import { requestEvents } from '../support/request-events.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const tokenId = `token-${run}`;
/** What requestEvents' usage counts per request. */
const TOKENS_PER_REQUEST = 31;

const requests = (count: number, from: number) =>
  Array.from({ length: count }, (_, index) => requestEvents(`${run}-${from + index}`, { tokenId })).flat();

/** As a node of the release before wrote them: one message per event, keyed by its entity or request. */
async function appendFormat1(kafka: Kafka, topics: TopicNames, events: readonly GatewayEvent[]): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (const event of events) {
      await producer.send({
        topic: streamOf(event.type) === 'entity' ? topics.entity : topics.traffic,
        acks: -1,
        messages: [{ key: partitionKeyOf(event), value: JSON.stringify(event) }],
      });
    }
  } finally {
    await producer.disconnect();
  }
}

describe.skipIf(services === null)('the event log in both message formats', () => {
  const settings: ClusterSettings = {
    kafkaBrokers: services?.kafkaBrokers ?? '',
    clickhouseUrl: services?.clickhouseUrl ?? '',
    redisUrl: services?.redisUrl ?? '',
    namespace: `batched${run}.`,
    clickhouseDatabase: `batched${run}`,
    trafficRetentionHours: 24,
    usageRetentionMonths: 0,
  };
  const topics = topicNames(settings.namespace);
  const keys = new RedisKeys(settings.namespace);
  const outboxDirectory = mkdtempSync(path.join(tmpdir(), 'batched-log-'));
  let kafka: Kafka;
  let clickhouse: ClickHouseClient;
  let redis: Redis;

  beforeAll(async () => {
    kafka = connectKafka(settings, `${settings.namespace}test`);
    await ensureTopics(kafka, topics, settings.trafficRetentionHours);
    clickhouse = createClient({ url: settings.clickhouseUrl });
    await migrateClickHouse(clickhouse, settings.clickhouseDatabase);
    redis = await connectRedis(settings);
  }, 120_000);

  afterAll(async () => {
    await clickhouse?.command({ query: `DROP DATABASE IF EXISTS ${settings.clickhouseDatabase}` });
    await clickhouse?.close();
    if (redis) {
      for await (const found of redis.scanIterator({ MATCH: `${settings.namespace}*`, COUNT: 1000 })) {
        const list = Array.isArray(found) ? found : [found];
        if (list.length > 0) await redis.unlink(list);
      }
      await redis.quit();
    }
    const admin = kafka?.admin();
    await admin?.connect();
    await admin?.deleteTopics({ topics: [topics.entity, topics.traffic] }).catch(() => {});
    await admin?.disconnect();
    rmSync(outboxDirectory, { recursive: true, force: true });
  });

  async function totals(): Promise<{ calls: number; tokens: number; used: number; tokenEventId: string | null }> {
    const rows = (await (
      await clickhouse.query({
        query: `SELECT (SELECT count() FROM ${settings.clickhouseDatabase}.requests FINAL WHERE token_id = '${tokenId}') AS calls,
          (SELECT sum(prompt_tokens + completion_tokens) FROM ${settings.clickhouseDatabase}.usage FINAL WHERE token_id = '${tokenId}') AS tokens`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ calls: string; tokens: string }>;
    const used = await redis.hGet(keys.usage(tokenId), 'used');
    const document = await redis.get(keys.document('tokens', tokenId));
    return {
      calls: Number(rows[0]!.calls),
      tokens: Number(rows[0]!.tokens),
      used: Number(used ?? 0),
      tokenEventId: document ? (JSON.parse(document) as { _eventId: string })._eventId : null,
    };
  }

  /** The last offset of every partition that holds messages, now. */
  async function ends(): Promise<Map<string, bigint>> {
    const admin = kafka.admin();
    await admin.connect();
    const found = new Map<string, bigint>();
    try {
      for (const topic of [topics.entity, topics.traffic]) {
        for (const partition of await admin.fetchTopicOffsets(topic)) {
          if (BigInt(partition.high) > BigInt(partition.low))
            found.set(`${topic}:${partition.partition}`, BigInt(partition.high) - 1n);
        }
      }
    } finally {
      await admin.disconnect();
    }
    return found;
  }

  /** Runs a projector of its own consumer group until it has committed every message there is. */
  async function projectAll(groupId: string): Promise<number> {
    const waiting = await ends();
    let applied = 0;
    let caughtUp: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      caughtUp = resolve;
    });
    const projector = new ClusterProjector({
      kafka,
      topics,
      groupId,
      redisWriter: new RedisProjectionWriter(redis, keys),
      clickhouseWriter: new ClickHouseUsageWriter(clickhouse, settings.clickhouseDatabase),
      onBatch(topic, partition, lastOffset, events) {
        applied += events;
        const key = `${topic}:${partition}`;
        if (BigInt(lastOffset) >= (waiting.get(key) ?? -1n)) waiting.delete(key);
        if (waiting.size === 0) caughtUp();
      },
    });
    await projector.start();
    await done;
    await projector.stop();
    return applied;
  }

  it('projects old and batched messages exactly once, and a rebuild reproduces the totals', async () => {
    // The broker checks every batch's CRC-32C: these appends also prove the native sum kafkajs was given.
    expect(kafkaChecksum).toBe('native');
    const issued = newEvent('token.issued', {
      tokenId,
      userId: 'u1',
      name: 'laptop',
      keyHash: `hash-${run}`,
      keyHint: 'sk-abcd…wxyz',
      expiresAt: null,
      quota: null,
      models: [],
    });
    const renamed = newEvent('token.updated', { tokenId, userId: 'u1', name: 'desktop' });
    const disabled = newEvent('token.updated', { tokenId, userId: 'u1', enabled: false });
    const before = requests(40, 0);
    await appendFormat1(kafka, topics, [issued, ...before]);

    const log = new KafkaEventLog(kafka, topics, new Outbox(outboxDirectory), refuseDoubt, (error) => {
      throw error;
    });
    await log.start();
    const batched = requests(300, 40);
    // The token's later events ride in the same appends as the traffic: one message for the entity.
    await log.append([...batched.slice(0, 300), renamed, ...batched.slice(300), disabled]);
    // As the publisher appends: batches printed when it cut them (one request's events in both), joined.
    const printed = requests(30, 340);
    await log.appendSerialized([log.serialize(printed.slice(0, 25)), log.serialize(printed.slice(25))]);
    await log.close();

    // 80 single events, then 600 events in three messages and the printed 60 in one.
    const messagesIn = (topic: string, found: Map<string, bigint>) =>
      [...found].filter(([key]) => key.startsWith(`${topic}:`)).reduce((sum, [, last]) => sum + Number(last) + 1, 0);
    const written = await ends();
    expect(messagesIn(topics.traffic, written)).toBe(80 + 3 + 1);
    // The token's three events: its first alone, then both later ones in one message, in its partition.
    expect(messagesIn(topics.entity, written)).toBe(2);
    expect([...written.keys()].filter((key) => key.startsWith(`${topics.entity}:`))).toHaveLength(1);

    const expected = { calls: 370, tokens: 370 * TOKENS_PER_REQUEST, used: 370 * TOKENS_PER_REQUEST };
    const applied = await projectAll(`${settings.namespace}projector`);
    expect(applied).toBe(1 + 80 + 600 + 2 + 60);
    expect(await totals()).toEqual({ ...expected, tokenEventId: disabled.eventId });

    // The whole log again, as a consumer group that lost its offsets would read it: nothing moves.
    await projectAll(`${settings.namespace}again`);
    expect(await totals()).toEqual({ ...expected, tokenEventId: disabled.eventId });

    const progress: Array<[number, number]> = [];
    const rebuilt = await rebuildCluster(settings, (read, total) => progress.push([read, total]));
    expect(rebuilt).toBe(applied);
    expect(progress.at(-1)).toEqual([2 + 84, 2 + 84]);
    expect(await totals()).toEqual({ ...expected, tokenEventId: disabled.eventId });
  }, 240_000);
});
