/**
 * @module stores/cluster/connections
 * Clients of the three cluster servers, configured for a gateway that must keep serving when one of
 * them is slow or gone: short connect timeouts and few retries, because the caller has a fallback
 * (the outbox, the in-memory replica) and a long retry only delays it.
 */

import { type ClickHouseClient, createClient as createClickHouseClient } from '@clickhouse/client';
import type { Kafka as KafkaClient } from 'kafkajs';
import { createClient as createRedisClient } from 'redis';
import type { ClusterSettings } from '../../platform/storage-settings.ts';
import { payloadSchemaStatements } from './clickhouse-payloads.ts';
import { addedColumns, schemaStatements } from './clickhouse-schema.ts';
import { identifier, stringLiteral } from './clickhouse-sql.ts';
import { Kafka, logLevel } from './kafka-client.ts';
import type { Redis } from './redis-keys.ts';

export type { ClusterSettings };

export function connectKafka(settings: Pick<ClusterSettings, 'kafkaBrokers'>, clientId: string): KafkaClient {
  return new Kafka({
    clientId,
    brokers: settings.kafkaBrokers.split(',').map((broker) => broker.trim()),
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
    // kafkajs logs every reconnect attempt as an error; outages are reported by our own logs instead.
    logLevel: logLevel.NOTHING,
  });
}

export async function ensureTopics(
  kafka: KafkaClient,
  topics: { entity: string; traffic: string },
  retentionHours: number,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = [
      // Entity events are the source of truth of every lookup projection: kept forever.
      { topic: topics.entity, numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '-1' }] },
      {
        topic: topics.traffic,
        numPartitions: 6,
        configEntries: [{ name: 'retention.ms', value: String(retentionHours * 3_600_000) }],
      },
    ].filter((topic) => !existing.has(topic.topic));
    if (wanted.length > 0) await admin.createTopics({ topics: wanted, waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

export function connectClickHouse(settings: ClusterSettings): ClickHouseClient {
  // Sockets idle for a second are dropped: the server closes them after 3 s (`keep_alive_timeout`),
  // and on a busy machine a socket the client still thought alive was reused and reset mid-insert.
  // The idle timer fires late when the event loop is starved (load average 13 on two cores: sockets
  // idle 2.4 s were reused, and a 10 MB insert failed with EPIPE and was written again), so a stale
  // socket is also checked for age when it is taken.
  return createClickHouseClient({
    url: settings.clickhouseUrl,
    request_timeout: 30_000,
    keep_alive: { idle_socket_ttl: 1_000, eagerly_destroy_stale_sockets: true },
  });
}

export async function migrateClickHouse(client: ClickHouseClient, database: string): Promise<void> {
  const db = identifier(database);
  for (const statement of [...schemaStatements(db), ...payloadSchemaStatements(db)]) {
    await client.command({ query: statement });
  }
  const present = await columnsOf(client, database);
  for (const [table, column, type] of addedColumns) {
    if (present.has(`${table}.${column}`)) continue;
    try {
      await client.command({
        query: `ALTER TABLE ${db}.${identifier(table)} ADD COLUMN ${identifier(column)} ${type}`,
      });
    } catch (error) {
      // Nodes and the projector migrate as they start, often at once: another may have added it first
      // (the ClickHouse client still logs the refused ALTER as an error; it is harmless then).
      if (!(await columnsOf(client, database)).has(`${table}.${column}`)) throw error;
    }
  }
}

/** `table.column` for every column of the database's tables. */
async function columnsOf(client: ClickHouseClient, database: string): Promise<Set<string>> {
  const rows = (await (
    await client.query({
      query: `SELECT table, name FROM system.columns WHERE database = ${stringLiteral(database)}`,
      format: 'JSONEachRow',
    })
  ).json()) as Array<{ table: string; name: string }>;
  return new Set(rows.map((column) => `${column.table}.${column.name}`));
}

export async function connectRedis(settings: ClusterSettings): Promise<Redis> {
  const client = createRedisClient({
    url: settings.redisUrl,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000) },
  }) as Redis;
  client.on('error', () => {
    // Reconnects are automatic; failures surface on the calls that need Redis.
  });
  await client.connect();
  return client;
}
