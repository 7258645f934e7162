/**
 * @module test/cluster/cluster-namespace
 * Removes what a suite's namespace left on the servers: its ClickHouse database, its Kafka topics and
 * its Redis keys. Each suite runs in a namespace of its own so that runs never meet; without this,
 * a developer's long-lived servers (`scripts/services up`) kept every run's topics, and Kafka held
 * 900 partition logs after a day of runs. Called after the suite's processes have stopped.
 */
import { createClient as createClickHouse } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
import { createClient as createRedis } from 'redis';
import type { ClusterServices } from './cluster-services.ts';

export async function dropNamespace(services: ClusterServices, namespace: string, database: string): Promise<void> {
  const clickhouse = createClickHouse({ url: services.clickhouseUrl });
  try {
    await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  } finally {
    await clickhouse.close();
  }
  const redis = await createRedis({ url: services.redisUrl }).connect();
  try {
    for await (const found of redis.scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 })) {
      const keys = Array.isArray(found) ? found : [found];
      if (keys.length > 0) await redis.unlink(keys);
    }
  } finally {
    await redis.quit();
  }
  const admin = new Kafka({
    clientId: `${namespace}cleanup`,
    brokers: services.kafkaBrokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(namespace));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}
