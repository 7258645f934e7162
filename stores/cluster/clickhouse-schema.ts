/**
 * @module stores/cluster/clickhouse-schema
 * The ClickHouse tables, written in the SQL subset ClickHouse 18.16 and current releases both accept
 * (no DateTime64, no LowCardinality, no table TTL). Idempotency comes from the engines:
 * - `requests` and `usage` are ReplacingMergeTree keyed by request id: a redelivered event inserts a
 *   row that merges away, and reads use FINAL, so each request counts once.
 * - `usage_hourly` is recomputed from those tables for the hours a batch touched and replaces its
 *   earlier rows (ReplacingMergeTree on `version`), so totals stay exact however often a batch repeats.
 * Retention is by monthly partition (`ALTER TABLE … DROP PARTITION`), as 18.16 has no TTL clause.
 */
import { identifier } from './clickhouse-sql.ts';

export function schemaStatements(database: string): string[] {
  const db = identifier(database);
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${db}.requests (
      request_id String,
      started_at DateTime,
      started_at_ms UInt64,
      user_id String,
      token_id String,
      endpoint String,
      model_requested String,
      model_served String,
      channel_id String,
      stream UInt8,
      status UInt16,
      error_type String,
      error_message String,
      latency_ms Float64,
      first_token_ms Float64,
      has_first_token UInt8,
      client_aborted UInt8,
      event_id String
    ) ENGINE = ReplacingMergeTree()
    PARTITION BY toYYYYMM(started_at)
    ORDER BY (user_id, started_at, request_id)`,
    `CREATE TABLE IF NOT EXISTS ${db}.usage (
      request_id String,
      started_at DateTime,
      user_id String,
      token_id String,
      model String,
      channel_id String,
      prompt_tokens UInt64,
      completion_tokens UInt64,
      cached_tokens UInt64,
      cache_write_tokens UInt64,
      reasoning_tokens UInt64,
      estimated UInt8,
      event_id String
    ) ENGINE = ReplacingMergeTree()
    PARTITION BY toYYYYMM(started_at)
    ORDER BY (user_id, started_at, request_id)`,
    `CREATE TABLE IF NOT EXISTS ${db}.usage_hourly (
      hour DateTime,
      user_id String,
      token_id String,
      model String,
      channel_id String,
      calls UInt64,
      errors UInt64,
      latency_ms_sum Float64,
      prompt_tokens UInt64,
      completion_tokens UInt64,
      cached_tokens UInt64,
      reasoning_tokens UInt64,
      version UInt64
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(hour)
    ORDER BY (user_id, hour, model, token_id, channel_id)`,
  ];
}

export const projectionTableNames = ['requests', 'usage', 'usage_hourly'];
