/**
 * @module stores/cluster
 * The cluster stores of one gateway node: events to Kafka (with the local outbox), lookups from a
 * Redis-fed in-memory replica, usage read from ClickHouse. The projector runs as its own role
 * (`npm run projector`) or, with `npm start`, in the same process.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { ClusterProjector } from '../../projector/cluster-projector.ts';
import { documentModels } from '../../projector/read-models/document-models.ts';
import type { Stores } from '../ports.ts';
import { ClickHousePayloads } from './clickhouse-payloads.ts';
import { dropExpiredPartitions } from './clickhouse-retention.ts';
import { ClickHouseUsageQueries } from './clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from './clickhouse-usage-writer.ts';
import {
  type ClusterSettings,
  connectClickHouse,
  connectKafka,
  connectRedis,
  ensureTopics,
  migrateClickHouse,
} from './connections.ts';
import { KafkaEventLog, projectorGroupId, topicNames } from './kafka-event-log.ts';
import { Outbox } from './outbox.ts';
import { ProjectedUsage } from './outbox-doubt.ts';
import { RedisCommandGuards } from './redis-command-guards.ts';
import { RedisKeys } from './redis-keys.ts';
import { RedisLookups } from './redis-lookups.ts';
import { RedisProjectionWriter } from './redis-projection-writer.ts';
import { RedisQuotaLedger } from './redis-quota-ledger.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';
import { RedisResponses } from './redis-responses.ts';

export type { ClusterSettings } from './connections.ts';

/** Lapsed payloads are deleted this often (reads skip them meanwhile). */
const PAYLOAD_PURGE_INTERVAL_MS = 10 * 60_000;

type Log = (message: string, extra?: Record<string, unknown>) => void;

export interface ClusterStores extends Stores {
  events: KafkaEventLog;
  lookups: RedisLookups;
}

export async function createClusterStores(
  settings: ClusterSettings,
  dataDirectory: string,
  log: Log,
): Promise<ClusterStores> {
  const kafka = connectKafka(settings, `${settings.namespace}gateway`);
  const topics = topicNames(settings.namespace);
  await ensureTopics(kafka, topics, settings.trafficRetentionHours).catch((error: unknown) =>
    log('Kafka unreachable at start; events go to the local outbox until it answers', { error: String(error) }),
  );
  const clickhouse = connectClickHouse(settings);
  const settler = new ProjectedUsage(
    kafka,
    topics.traffic,
    projectorGroupId(settings.namespace),
    clickhouse,
    settings.clickhouseDatabase,
  );
  const events = new KafkaEventLog(kafka, topics, new Outbox(dataDirectory), settler, (error) =>
    log('Kafka send failed, or outbox events in doubt wait for the projector; kept in the outbox', {
      error: String(error),
    }),
  );
  await events.start();
  const redis = await connectRedis(settings);
  const subscriber = redis.duplicate();
  subscriber.on('error', () => {});
  await subscriber.connect();
  const keys = new RedisKeys(settings.namespace);
  const lookups = new RedisLookups(redis, subscriber, keys);
  await lookups.start();
  const writer = new RedisProjectionWriter(redis, keys, settings.responseRetentionMs);
  await migrateClickHouse(clickhouse, settings.clickhouseDatabase);

  return {
    mode: 'cluster',
    events,
    lookups,
    guards: new RedisCommandGuards(redis, keys),
    rateLimiter: new RedisRateLimiter(redis, settings.namespace, log),
    quotas: new RedisQuotaLedger(redis, settings.namespace, log),
    // The projector is its own process here; its lag is the consumer group's lag in Kafka.
    backlog: async () => ({ outboxDepth: events.outboxDepth, projectorLagEvents: null }),
    usage: new ClickHouseUsageQueries(clickhouse, settings.clickhouseDatabase),
    responses: new RedisResponses(redis, keys.prefix, settings.responseRetentionMs),
    payloads: new ClickHousePayloads(clickhouse, settings.clickhouseDatabase),
    sync: {
      // Write-through: the node that issued a command applies it to Redis itself, so every node can
      // read it before this returns (the projector applies the same events again, to no effect).
      async caughtUp(applied?: readonly GatewayEvent[]) {
        if (!applied || applied.length === 0) return;
        await writer.apply(applied);
        // Reload every touched document, applied here or already by the projector: either way this
        // node must see it before answering.
        const touched = new Map<string, { collection: 'tokens' | 'users' | 'channels'; id: string }>();
        for (const event of applied) {
          for (const model of documentModels) {
            if (!model.canHandle(event)) continue;
            const id = model.documentIdOf(event);
            touched.set(`${model.collection}:${id}`, {
              collection: model.collection as 'tokens' | 'users' | 'channels',
              id,
            });
          }
        }
        await Promise.all([...touched.values()].map(({ collection, id }) => lookups.reload(collection, id)));
      },
    },
    async ready() {
      const [redisOk, clickhouseOk] = await Promise.all([
        redis.ping().then(
          () => true,
          () => false,
        ),
        clickhouse.ping().then(
          (result) => result.success,
          () => false,
        ),
      ]);
      return redisOk && clickhouseOk;
    },
    async close() {
      await events.close();
      await subscriber.quit().catch(() => {});
      await redis.quit().catch(() => {});
      await clickhouse.close();
    },
  };
}

/** The projector role: consumes both topics into Redis and ClickHouse. */
export async function startClusterProjector(
  settings: ClusterSettings,
  log: Log,
): Promise<{ projector: ClusterProjector; close(): Promise<void> }> {
  const kafka = connectKafka(settings, `${settings.namespace}projector`);
  const topics = topicNames(settings.namespace);
  await ensureTopics(kafka, topics, settings.trafficRetentionHours);
  const redis = await connectRedis(settings);
  const clickhouse = connectClickHouse(settings);
  await migrateClickHouse(clickhouse, settings.clickhouseDatabase);
  const payloads = new ClickHousePayloads(clickhouse, settings.clickhouseDatabase);
  const projector = new ClusterProjector({
    kafka,
    topics,
    groupId: projectorGroupId(settings.namespace),
    redisWriter: new RedisProjectionWriter(redis, new RedisKeys(settings.namespace), settings.responseRetentionMs),
    clickhouseWriter: new ClickHouseUsageWriter(clickhouse, settings.clickhouseDatabase),
    payloadWriter: payloads,
    log,
    ...(settings.projectorWriteIntervalMs === undefined ? {} : { writeIntervalMs: settings.projectorWriteIntervalMs }),
    ...(settings.projectorSessionTimeoutMs === undefined
      ? {}
      : { sessionTimeoutMs: settings.projectorSessionTimeoutMs }),
  });
  await projector.start();
  // Retention runs in the projector (one place, not every gateway node): at start and every 6 hours.
  const applyRetention = () =>
    dropExpiredPartitions(clickhouse, settings.clickhouseDatabase, settings.usageRetentionMonths).then(
      (dropped) => dropped.length > 0 && log('dropped expired usage partitions', { dropped }),
      (error: unknown) => log('usage retention failed; will retry', { error: String(error) }),
    );
  const purgePayloads = () =>
    payloads
      .purgeLapsed()
      .catch((error: unknown) => log('payload retention failed; will retry', { error: String(error) }));
  void applyRetention();
  void purgePayloads();
  const payloadRetention = setInterval(purgePayloads, PAYLOAD_PURGE_INTERVAL_MS);
  payloadRetention.unref();
  const retention = setInterval(applyRetention, 6 * 3_600_000);
  retention.unref();
  return {
    projector,
    async close() {
      clearInterval(retention);
      clearInterval(payloadRetention);
      await projector.stop();
      await redis.quit().catch(() => {});
      await clickhouse.close();
    },
  };
}
