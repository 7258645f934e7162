/**
 * @module stores/cluster/rebuild
 * Rebuilds the cluster projections from Kafka: drops the ClickHouse tables and the Redis keys of the
 * namespace, then replays both topics from the beginning with a fresh consumer group until it reaches
 * the offsets the topics had when it started. Stop the projector first; restarted afterwards, it
 * resumes from its own offsets and re-applies the tail, to no effect (every write is idempotent).
 * Usage older than the traffic topic's retention is not in Kafka any more and cannot come back.
 */
import { ClusterProjector } from '../../projector/cluster-projector.ts';
import { projectionTableNames } from './clickhouse-schema.ts';
import { identifier } from './clickhouse-sql.ts';
import { ClickHouseUsageWriter } from './clickhouse-usage-writer.ts';
import {
  type ClusterSettings,
  connectClickHouse,
  connectKafka,
  connectRedis,
  migrateClickHouse,
} from './connections.ts';
import { topicNames } from './kafka-event-log.ts';
import { RedisKeys } from './redis-keys.ts';
import { RedisProjectionWriter } from './redis-projection-writer.ts';

/**
 * Returns the events applied. `progress` counts Kafka messages read of those the topics held at the
 * start: a message carries one event or several (contracts/events/log-message.ts), so only messages
 * can be counted ahead.
 */
export async function rebuildCluster(
  settings: ClusterSettings,
  progress: (read: number, total: number) => void,
): Promise<number> {
  const kafka = connectKafka(settings, `${settings.namespace}rebuild`);
  const topics = topicNames(settings.namespace);
  const admin = kafka.admin();
  await admin.connect();
  const targets = new Map<string, bigint>();
  let total = 0;
  for (const topic of [topics.entity, topics.traffic]) {
    for (const partition of await admin.fetchTopicOffsets(topic)) {
      const end = BigInt(partition.high);
      if (end > BigInt(partition.low)) targets.set(`${topic}:${partition.partition}`, end - 1n);
      total += Number(end - BigInt(partition.low));
    }
  }
  await admin.disconnect();

  const clickhouse = connectClickHouse(settings);
  const database = identifier(settings.clickhouseDatabase);
  for (const table of projectionTableNames)
    await clickhouse.command({ query: `DROP TABLE IF EXISTS ${database}.${table}` });
  await migrateClickHouse(clickhouse, database);
  const redis = await connectRedis(settings);
  const keys = new RedisKeys(settings.namespace);
  for await (const batch of redis.scanIterator({ MATCH: `${settings.namespace}*`, COUNT: 1000 })) {
    const found = Array.isArray(batch) ? batch : [batch];
    if (found.length > 0) await redis.del(found);
  }

  let applied = 0;
  let read = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  if (targets.size === 0) finish();
  const projector = new ClusterProjector({
    kafka,
    topics,
    groupId: `${settings.namespace}rebuild-${Date.now()}`,
    // All backlog: each write starts as soon as the last one ended, never held for live traffic's
    // interval (which a slow write stretches to 5 s, and which the last, partial write would wait).
    writeIntervalMs: 0,
    redisWriter: new RedisProjectionWriter(redis, keys, settings.responseRetentionMs),
    clickhouseWriter: new ClickHouseUsageWriter(clickhouse, database),
    onBatch(topic, partition, lastOffset, events, messages) {
      applied += events;
      read += messages;
      progress(read, total);
      const key = `${topic}:${partition}`;
      const target = targets.get(key);
      if (target !== undefined && BigInt(lastOffset) >= target) targets.delete(key);
      if (targets.size === 0) finish();
    },
  });
  await projector.start();
  await done;
  await projector.stop();
  await redis.quit();
  await clickhouse.close();
  return applied;
}
