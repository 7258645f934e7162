/**
 * @module platform/storage-settings
 * Where the events and projections live: the embedded data directory, or the cluster's servers. Every
 * role reads these from the environment the same way (the gateway's other settings are in
 * gateway/config/settings.ts); docs/operations.md, "Configuration", documents the variables.
 */
import path from 'node:path';
import { integer } from './read-integer.ts';

export interface ClusterSettings {
  kafkaBrokers: string;
  clickhouseUrl: string;
  redisUrl: string;
  /** prefix of topics, consumer groups and Redis keys; lets several deployments share servers */
  namespace: string;
  clickhouseDatabase: string;
  /** how long traffic events stay in Kafka (ClickHouse keeps the history) */
  trafficRetentionHours: number;
  /** months of usage ClickHouse keeps (whole monthly partitions); 0 keeps everything */
  usageRetentionMonths: number;
  /** the projector starts a write under live traffic at most this often (default 1,000 ms) */
  projectorWriteIntervalMs?: number;
  /**
   * how long the broker waits for a projector that stopped answering before it hands its partitions to
   * another (default 10,000 ms): a projector killed without leaving its group delays its successor this long
   */
  projectorSessionTimeoutMs?: number;
  /** how long a stored response is kept (default 30 days), as in StorageSettings */
  responseRetentionMs?: number;
}

export interface StorageSettings {
  dataDirectory: string;
  /** null in embedded mode */
  cluster: ClusterSettings | null;
  /** how long a stored response (`/v1/responses` with `store`) is kept, from STORED_RESPONSES_RETENTION_DAYS */
  responseRetentionMs: number;
}

const DAY_MS = 86_400_000;

export function readStorageSettings(environment: NodeJS.ProcessEnv = process.env): StorageSettings {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = environment;
  const clusterVariables = [KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL].filter(Boolean).length;
  if (clusterVariables > 0 && clusterVariables < 3) {
    throw new Error('Cluster mode needs KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL all set; set all three or none.');
  }
  const retentionDays = integer(environment.STORED_RESPONSES_RETENTION_DAYS, 30, 'STORED_RESPONSES_RETENTION_DAYS');
  if (retentionDays < 1) throw new Error('STORED_RESPONSES_RETENTION_DAYS must be at least 1 (a day).');
  const responseRetentionMs = retentionDays * DAY_MS;
  return {
    dataDirectory: path.resolve(environment.DATA_DIR ?? 'data'),
    responseRetentionMs,
    cluster:
      clusterVariables === 3
        ? {
            kafkaBrokers: KAFKA_BROKERS!,
            clickhouseUrl: CLICKHOUSE_URL!,
            redisUrl: REDIS_URL!,
            namespace: environment.CLUSTER_NAMESPACE ?? 'gateway.',
            clickhouseDatabase: environment.CLICKHOUSE_DATABASE ?? 'gateway',
            trafficRetentionHours: integer(environment.TRAFFIC_RETENTION_HOURS, 168, 'TRAFFIC_RETENTION_HOURS'),
            usageRetentionMonths: integer(environment.USAGE_RETENTION_MONTHS, 0, 'USAGE_RETENTION_MONTHS'),
            projectorWriteIntervalMs: integer(
              environment.PROJECTOR_WRITE_INTERVAL_MS,
              1_000,
              'PROJECTOR_WRITE_INTERVAL_MS',
            ),
            projectorSessionTimeoutMs: sessionTimeout(environment.PROJECTOR_SESSION_TIMEOUT_MS),
            responseRetentionMs,
          }
        : null,
  };
}

/** Three heartbeats (one a second) at least, so that one late heartbeat does not cost the group a rebalance. */
function sessionTimeout(value: string | undefined): number {
  const milliseconds = integer(value, 10_000, 'PROJECTOR_SESSION_TIMEOUT_MS');
  if (milliseconds < 3_000) throw new Error(`PROJECTOR_SESSION_TIMEOUT_MS must be at least 3000, got "${value}".`);
  return milliseconds;
}
