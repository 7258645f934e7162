/**
 * A request a node may have sent twice is in the log once, on a real Kafka, ClickHouse and Redis:
 * events a failed send left in the outbox are in doubt; the node waits for the projector to commit
 * the traffic topic to its ends, drops those ClickHouse holds, and sends the rest, so key usage in
 * Redis (counted once per log position, with nothing kept per request) counts each request once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterProjector } from '../../projector/cluster-projector.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import {
  type ClusterSettings,
  connectKafka,
  connectRedis,
  ensureTopics,
  migrateClickHouse,
} from '../../stores/cluster/connections.ts';
import { KafkaEventLog, projectorGroupId, topicNames } from '../../stores/cluster/kafka-event-log.ts';
import { Outbox } from '../../stores/cluster/outbox.ts';
import { ProjectedUsage, refuseDoubt } from '../../stores/cluster/outbox-doubt.ts';
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

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(services === null)('outbox events in doubt', () => {
  const settings: ClusterSettings = {
    kafkaBrokers: services?.kafkaBrokers ?? '',
    clickhouseUrl: services?.clickhouseUrl ?? '',
    redisUrl: services?.redisUrl ?? '',
    namespace: `doubt${run}.`,
    clickhouseDatabase: `doubt${run}`,
    trafficRetentionHours: 24,
    usageRetentionMonths: 0,
  };
  const topics = topicNames(settings.namespace);
  const keys = new RedisKeys(settings.namespace);
  const directories = [mkdtempSync(path.join(tmpdir(), 'doubt-sent-')), mkdtempSync(path.join(tmpdir(), 'doubt-'))];
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
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  async function calls(): Promise<number> {
    const rows = (await (
      await clickhouse.query({
        query: `SELECT count() AS calls FROM ${settings.clickhouseDatabase}.requests FINAL WHERE token_id = '${tokenId}'`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ calls: string }>;
    return Number(rows[0]!.calls);
  }

  it('sends again only what the log does not hold, once the projector has caught up', async () => {
    // Kafka wrote the first 40 requests of a send whose answer never came; the other 40 it did not.
    const written = requests(40, 0);
    const unwritten = requests(40, 40);
    const sent = new KafkaEventLog(kafka, topics, new Outbox(directories[0]!), refuseDoubt);
    await sent.start();
    await sent.append(written);
    await sent.close();
    // So the node kept both in its outbox, in doubt, and queued 30 later requests behind them.
    const outbox = new Outbox(directories[1]!);
    outbox.add([...written, ...unwritten], true);
    const later = requests(30, 80);
    outbox.add(later);
    const waits: string[] = [];
    const log = new KafkaEventLog(
      kafka,
      topics,
      outbox,
      new ProjectedUsage(
        kafka,
        topics.traffic,
        projectorGroupId(settings.namespace),
        clickhouse,
        settings.clickhouseDatabase,
      ),
      (error) => waits.push(String(error)),
    );
    await log.start();
    // No projector yet: nothing is sent while the doubt cannot be settled.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(outbox.size).toBe(written.length + unwritten.length + later.length);

    const projector = new ClusterProjector({
      kafka,
      topics,
      groupId: projectorGroupId(settings.namespace),
      redisWriter: new RedisProjectionWriter(redis, keys),
      clickhouseWriter: new ClickHouseUsageWriter(clickhouse, settings.clickhouseDatabase),
      writeIntervalMs: 0,
    });
    await projector.start();
    try {
      await until(async () => outbox.size === 0, 60_000).catch((error: unknown) => {
        throw new Error(`${String(error)}: ${waits.join('; ')}`);
      });
      await until(async () => (await calls()) === 110, 60_000);
      // Every event the log holds applied (the projector's progress counts them): 80 + 30 requests of two events.
      await until(async () => projector.progress.applied >= 220, 60_000);
      expect(projector.progress.applied).toBe(220);
      expect(Number(await redis.hGet(keys.usage(tokenId), 'used'))).toBe(110 * TOKENS_PER_REQUEST);
    } finally {
      await projector.stop();
      await log.close();
    }
  }, 180_000);
});
