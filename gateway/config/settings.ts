/**
 * @module gateway/config/settings
 * Every setting comes from the environment (documented in the README's configuration reference).
 */
import path from 'node:path';
import type { ClusterSettings } from '../../stores/cluster/connections.ts';

export interface Settings {
  port: number;
  host: string;
  dataDirectory: string;
  secret: string | undefined;
  configFile: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** largest request body accepted on the relay endpoints, in bytes */
  bodyLimitBytes: number;
  /** give up on an upstream that sends no response headers within this time */
  upstreamHeadersTimeoutMs: number;
  /** give up on an upstream that goes silent this long between two frames */
  upstreamIdleTimeoutMs: number;
  /** mark session cookies Secure (set when the gateway is served over TLS) */
  secureCookies: boolean;
  cluster: ClusterSettings | null;
  logLevel: string;
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return parsed;
}

export function readSettings(environment: NodeJS.ProcessEnv = process.env): Settings {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = environment;
  const clusterVariables = [KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL].filter(Boolean).length;
  if (clusterVariables > 0 && clusterVariables < 3) {
    throw new Error('Cluster mode needs KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL all set; set all three or none.');
  }
  return {
    port: integer(environment.PORT, 3000, 'PORT'),
    host: environment.HOST ?? '0.0.0.0',
    dataDirectory: path.resolve(environment.DATA_DIR ?? 'data'),
    secret: environment.GATEWAY_SECRET || undefined,
    configFile: environment.GATEWAY_CONFIG || undefined,
    adminEmail: environment.ADMIN_EMAIL || undefined,
    adminPassword: environment.ADMIN_PASSWORD || undefined,
    bodyLimitBytes: integer(environment.BODY_LIMIT_BYTES, 20 * 1024 * 1024, 'BODY_LIMIT_BYTES'),
    upstreamHeadersTimeoutMs: integer(environment.UPSTREAM_HEADERS_TIMEOUT_MS, 120_000, 'UPSTREAM_HEADERS_TIMEOUT_MS'),
    upstreamIdleTimeoutMs: integer(environment.UPSTREAM_IDLE_TIMEOUT_MS, 300_000, 'UPSTREAM_IDLE_TIMEOUT_MS'),
    secureCookies: environment.SECURE_COOKIES === 'true',
    cluster:
      clusterVariables === 3
        ? {
            kafkaBrokers: KAFKA_BROKERS!,
            clickhouseUrl: CLICKHOUSE_URL!,
            redisUrl: REDIS_URL!,
            namespace: environment.CLUSTER_NAMESPACE ?? 'gateway.',
            clickhouseDatabase: environment.CLICKHOUSE_DATABASE ?? 'gateway',
            trafficRetentionHours: integer(environment.TRAFFIC_RETENTION_HOURS, 168, 'TRAFFIC_RETENTION_HOURS'),
          }
        : null,
    logLevel: environment.LOG_LEVEL ?? 'info',
  };
}
