/**
 * @module stores/cluster/clickhouse-schema
 * The ClickHouse tables, written in the SQL subset ClickHouse 18.16 and current releases both accept
 * (no DateTime64, no LowCardinality, no table TTL). Idempotency comes from the engines:
 * - `requests` and `usage` are ReplacingMergeTree keyed by request id: a redelivered event inserts a
 *   row that merges away, and reads use FINAL, so each request counts once.
 * - `usage_slots` (per minute, user, key, model and channel, with a latency histogram) is recomputed
 *   from those tables for the (user, minute) pairs a batch touched and replaces its earlier rows
 *   (ReplacingMergeTree on `version`), so totals stay exact however often a batch repeats. No overview
 *   reads it: it bounds what a write recomputes to a minute of raw rows (clickhouse-rollup-sql.ts).
 * - `usage_hourly` (per hour, user, key, model and channel, with a latency histogram) is recomputed
 *   for the (user, hour) pairs a batch touched, from `usage_slots` for recent hours and from the raw
 *   tables for older ones, and replaces rows the same way. It is what a user's overview reads.
 * - The all-users overview cannot afford to read it (1.3 million rows for 30 days at 10 million
 *   requests), so two small all-users rollups answer it: `usage_hourly_models` (hour × model, with a
 *   latency histogram) and `usage_hourly_tokens` (hour × key, for the top keys). Both replace rows the
 *   same way. `usage_hourly_models` is summed, per touched hour, from `usage_hourly_user_models`
 *   (hour × user × model), which is ordered by hour first so that sum reads only the touched hours;
 *   `usage_hourly` is ordered by user and could not. `usage_daily_models` and `usage_daily_tokens` sum
 *   those two by day, from them, for the touched days.
 * Retention is by monthly partition (`ALTER TABLE … DROP PARTITION`), as 18.16 has no TTL clause.
 */
import { type Measure, measures } from '../../projector/read-models/usage/measures.ts';
import { attributionAddedColumns } from './clickhouse-attribution.ts';
import { identifier } from './clickhouse-sql.ts';

const columnType = (measure: Measure) => (measure.type === 'real' ? 'Float64' : 'UInt64');
const measureColumns = (chosen: readonly Measure[]) =>
  chosen.map((measure) => `${measure.name} ${columnType(measure)},`).join('\n      ');

/** The sums of the per-model rollups, with a latency histogram (see clickhouse-latency-histogram.ts). */
const aggregateColumns = `${measureColumns(measures)}
      latency_buckets Array(UInt16),
      latency_counts Array(UInt64),
      version UInt64`;

/** The rollup tables whose columns are the declared measures (measures.ts), and which of them they keep. */
const rollupMeasures: ReadonlyArray<readonly [table: string, kept: readonly Measure[]]> = [
  ['usage_slots', measures],
  ['usage_hourly', measures],
  ['usage_hourly_user_models', measures],
  ['usage_hourly_models', measures],
  ['usage_hourly_tokens', measures.filter((measure) => measure.perKey)],
  ['usage_daily_models', measures],
  ['usage_daily_tokens', measures.filter((measure) => measure.perKey)],
];

/** A rollup per user, key, model and channel, by `time` (`usage_slots` by minute, `usage_hourly` by hour). */
const perKeyRollupTable = (db: string, table: string, time: string) =>
  `CREATE TABLE IF NOT EXISTS ${db}.${table} (
      ${time} DateTime,
      user_id String,
      token_id String,
      model String,
      channel_id String,
      ${aggregateColumns}
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(${time})
    ORDER BY (user_id, ${time}, model, token_id, channel_id)`;

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
      event_id String,
      client_request_id String,
      attempts String
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
      event_id String,
      cost_nano_usd UInt64,
      priced UInt8
    ) ENGINE = ReplacingMergeTree()
    PARTITION BY toYYYYMM(started_at)
    ORDER BY (user_id, started_at, request_id)`,
    perKeyRollupTable(db, 'usage_slots', 'slot'),
    perKeyRollupTable(db, 'usage_hourly', 'hour'),
    `CREATE TABLE IF NOT EXISTS ${db}.usage_hourly_user_models (
      hour DateTime,
      user_id String,
      model String,
      ${aggregateColumns}
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(hour)
    ORDER BY (hour, user_id, model)`,
    `CREATE TABLE IF NOT EXISTS ${db}.usage_hourly_models (
      hour DateTime,
      model String,
      ${aggregateColumns}
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(hour)
    ORDER BY (hour, model)`,
    // Keyed by user too: a key belongs to one user, so the rows of a (user, hour) pair are complete on
    // their own and can be replaced without reading any other user's.
    `CREATE TABLE IF NOT EXISTS ${db}.usage_hourly_tokens (
      hour DateTime,
      token_id String,
      user_id String,
      ${measureColumns(measures.filter((measure) => measure.perKey))}
      version UInt64
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(hour)
    ORDER BY (hour, token_id, user_id)`,
    // The same two by day, for the whole days of an all-users overview: 30 days of top keys read
    // 12,000 rows here instead of 288,000 hourly ones (at 200 users), the latency histogram 150.
    `CREATE TABLE IF NOT EXISTS ${db}.usage_daily_models (
      day DateTime,
      model String,
      ${aggregateColumns}
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(day)
    ORDER BY (day, model)`,
    `CREATE TABLE IF NOT EXISTS ${db}.usage_daily_tokens (
      day DateTime,
      token_id String,
      user_id String,
      ${measureColumns(measures.filter((measure) => measure.perKey))}
      version UInt64
    ) ENGINE = ReplacingMergeTree(version)
    PARTITION BY toYYYYMM(day)
    ORDER BY (day, token_id, user_id)`,
    // Which one-off back-fills have finished (see clickhouse-rollup-backfill.ts). Not a projection:
    // a rebuild keeps it, since replaying the topics fills every rollup anyway.
    `CREATE TABLE IF NOT EXISTS ${db}.rollup_backfills (
      name String,
      finished_at DateTime
    ) ENGINE = ReplacingMergeTree()
    ORDER BY name`,
  ];
}

/**
 * Columns added to tables after their first release, as `[table, column, type]`. ClickHouse 18.16 has
 * no `ADD COLUMN IF NOT EXISTS`, so the migration adds each one its table lacks (system.columns).
 */
export const addedColumns: ReadonlyArray<readonly [table: string, column: string, type: string]> = [
  ['requests', 'client_request_id', 'String'],
  // The upstream calls as JSON, for the usage log's detail panel.
  ['requests', 'attempts', 'String'],
  // Latency histograms per user (clickhouse-overview.ts): rows written before them hold none, and
  // the overview counts those from the raw rows.
  ['usage_hourly', 'latency_buckets', 'Array(UInt16)'],
  ['usage_hourly', 'latency_counts', 'Array(UInt64)'],
  // Costs (usage.recorded v2): a usage row without them reads as unpriced (priced = 0).
  ['usage', 'cost_nano_usd', 'UInt64'],
  ['usage', 'priced', 'UInt8'],
  // Measures declared after the rollups' first release (measures.ts), in every rollup that keeps them.
  ...rollupMeasures.flatMap(([table, kept]) =>
    kept.filter((measure) => measure.addedLater).map((measure) => [table, measure.name, columnType(measure)] as const),
  ),
  // Who and what each request was for (clickhouse-attribution.ts).
  ...attributionAddedColumns,
];

/** Every table derived from the traffic events: a rebuild drops them, retention drops their old months. */
export const projectionTableNames = [
  'requests',
  'usage',
  'usage_slots',
  'usage_hourly',
  'usage_hourly_user_models',
  'usage_hourly_models',
  'usage_hourly_tokens',
  'usage_daily_models',
  'usage_daily_tokens',
];
