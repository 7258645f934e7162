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

/** Each part is removed even when another fails; the first failure is thrown after all were tried. */
export async function dropNamespace(services: ClusterServices, namespace: string, database: string): Promise<void> {
  const failures: unknown[] = [];
  const attempt = (step: () => Promise<void>) => step().catch((error: unknown) => void failures.push(error));
  await attempt(async () => {
    const clickhouse = createClickHouse({ url: services.clickhouseUrl });
    try {
      await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    } finally {
      await clickhouse.close();
    }
  });
  await attempt(async () => {
    // A connection lost after connecting is reported here, not left as an uncaught error.
    const redis = await createRedis({ url: services.redisUrl })
      .on('error', (error: unknown) => failures.push(error))
      .connect();
    try {
      for await (const found of redis.scanIterator({ MATCH: `${namespace}*`, COUNT: 1000 })) {
        const keys = Array.isArray(found) ? found : [found];
        if (keys.length > 0) await redis.unlink(keys);
      }
    } finally {
      await redis.quit().catch(() => undefined);
    }
  });
  await attempt(async () => {
    const kafka = new Kafka({
      clientId: `${namespace}cleanup`,
      brokers: services.kafkaBrokers.split(','),
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(namespace));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
  });
  if (failures.length > 0) throw failures[0];
}
