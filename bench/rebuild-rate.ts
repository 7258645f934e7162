/**
 * @module bench/rebuild-rate
 * How fast `npm run rebuild` replays a cluster backlog: REQUESTS requests (default 500,000: a million
 * events) are published to a fresh namespace through the product's Kafka event log, as
 * bench/clickhouse-projector.ts does, then `rebuildCluster` (what `npm run rebuild` runs) is timed in
 * this process, with its parts: dropping the projections, joining the consumer group, and replaying.
 * Prints events per second of the replay; with `node --cpu-prof` the profile shows where it goes.
 * `catchup` times the live projector instead (`startClusterProjector`, what `npm run projector` runs,
 * with its live write interval) from the start of its group until it has applied the whole backlog.
 *
 *   eval "$(scripts/services up)"; npx tsx bench/rebuild-rate.ts [catchup]   (REQUESTS)
 */
import { createClient as createClickHouseClient } from '@clickhouse/client';
import { createClient } from 'redis';
import type { ClusterSettings } from '../stores/cluster/connections.ts';
import { connectKafka } from '../stores/cluster/connections.ts';
import { startClusterProjector } from '../stores/cluster/index.ts';
import { topicNames } from '../stores/cluster/kafka-event-log.ts';
import { rebuildCluster } from '../stores/cluster/rebuild.ts';
import { publish } from './clickhouse-projector.ts';

const REQUESTS = Number(process.env['REQUESTS'] ?? 500_000);

/** Runs the live projector until it has applied `events`; returns how many it applied. */
async function catchUp(settings: ClusterSettings, events: number, firstBatch: () => void): Promise<number> {
  const { projector, close } = await startClusterProjector(settings, () => {});
  try {
    while (projector.progress.applied < events) {
      if (projector.progress.applied > 0) firstBatch();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return projector.progress.applied;
  } finally {
    await close();
  }
}

async function main(): Promise<void> {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !CLICKHOUSE_URL || !REDIS_URL)
    throw new Error('KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL must be set');
  const run = Date.now().toString(36);
  const settings: ClusterSettings = {
    kafkaBrokers: KAFKA_BROKERS,
    clickhouseUrl: CLICKHOUSE_URL,
    redisUrl: REDIS_URL,
    namespace: `rebuildrate${run}.`,
    clickhouseDatabase: `rebuildrate${run}`,
    trafficRetentionHours: 24 * 40,
    usageRetentionMonths: 0,
  };
  try {
    const published = await publish(settings, REQUESTS);
    process.stdout.write(`published ${published.events} events in ${published.seconds.toFixed(1)} s\n`);
    const started = performance.now();
    let firstAt = 0;
    const applied =
      process.argv[2] === 'catchup'
        ? await catchUp(settings, published.events, () => {
            firstAt ||= performance.now();
          })
        : await rebuildCluster(settings, (read) => {
            if (firstAt === 0 && read > 0) firstAt = performance.now();
          });
    const ended = performance.now();
    const seconds = (ended - started) / 1000;
    const replaySeconds = (ended - firstAt) / 1000;
    process.stdout.write(
      `${process.argv[2] === 'catchup' ? 'caught up on' : 'rebuilt'} ${applied} events in ${seconds.toFixed(1)} s: ${Math.round(applied / seconds)} events/s overall; ` +
        `${((firstAt - started) / 1000).toFixed(1)} s to the first batch (dropping the projections for a rebuild, joining the group), ` +
        `then ${Math.round(applied / replaySeconds)} events/s\n`,
    );
  } finally {
    const clickhouse = createClickHouseClient({ url: CLICKHOUSE_URL });
    await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${settings.clickhouseDatabase}` });
    await clickhouse.close();
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const found of redis.scanIterator({ MATCH: `${settings.namespace}*`, COUNT: 1000 })) {
      const list = Array.isArray(found) ? found : [found];
      if (list.length > 0) await redis.unlink(list);
    }
    await redis.quit();
    const admin = connectKafka(settings, `${settings.namespace}bench`).admin();
    await admin.connect();
    const topics = topicNames(settings.namespace);
    await admin.deleteTopics({ topics: [topics.entity, topics.traffic] }).catch(() => {});
    await admin.disconnect();
  }
}

await main();
