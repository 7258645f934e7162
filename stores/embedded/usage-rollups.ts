/**
 * @module stores/embedded/usage-rollups
 * The usage rollups of the embedded store, and the SQL functions that merge their latency histograms.
 *
 * Each rollup answers its questions by reading few rows, and each costs the projector one upsert
 * per row a batch changes, so there are only four:
 * - `usage_hourly`: per user, key, model and channel and hour (a user's overview, any filter, and the
 *   ragged ends of every range);
 * - `usage_daily`: the same per day, keyed day first (whole days of a user's range, the top keys);
 * - `usage_model_hourly` / `usage_model_daily`: every user together, per model (the admin overview).
 * A 30-day overview reads the whole days from a daily table and only the first and last partial day
 * from an hourly one.
 */
import {
  addEncoded,
  addEncodedHistograms,
  encodeHistogram,
  type LatencyHistogram,
  latencyBucketOf,
} from '../../projector/read-models/usage/latency-histogram.ts';
import { type MeasureName, measureNames, measures } from '../../projector/read-models/usage/measures.ts';
import type { SqliteDatabase } from './database.ts';

export const DAY_MS = 24 * 3_600_000;

export type Dimension = 'user_id' | 'token_id' | 'model' | 'channel_id' | 'hour' | 'day';

export interface RollupTable {
  name: string;
  /** The primary key, in its order. */
  dimensions: readonly Dimension[];
  measures: readonly MeasureName[];
  /** Whether rows carry a `latency_histogram` (see latency-histogram.ts). */
  histogram: boolean;
  /** `usage_hourly` predates the others and kept its rowid table, so existing files stay as they are. */
  rowid?: boolean;
}

export const usageRollups: readonly RollupTable[] = [
  {
    // The first rollup; its histograms came later (usage-migration.ts fills them for older files).
    name: 'usage_hourly',
    dimensions: ['user_id', 'hour', 'model', 'token_id', 'channel_id'],
    measures: measureNames,
    histogram: true,
    rowid: true,
  },
  {
    // Day first: the admin's top keys read every user's rows of a range of days.
    name: 'usage_daily',
    dimensions: ['day', 'user_id', 'token_id', 'model'],
    measures: measureNames,
    histogram: true,
  },
  { name: 'usage_model_hourly', dimensions: ['hour', 'model'], measures: measureNames, histogram: true },
  { name: 'usage_model_daily', dimensions: ['day', 'model'], measures: measureNames, histogram: true },
];

/** The DDL of one rollup table. */
export function rollupTableDefinition(table: RollupTable): string {
  const dimensions = table.dimensions.map((name) =>
    name === 'hour' || name === 'day' ? `${name} INTEGER NOT NULL` : `${name} TEXT NOT NULL`,
  );
  const histogram = table.histogram ? ['latency_histogram BLOB'] : [];
  // WITHOUT ROWID: the rows live in the primary key's b-tree, so a range of days or hours is one
  // sequential read with no second lookup per row.
  return `CREATE TABLE IF NOT EXISTS ${table.name} (
  ${[...dimensions, ...table.measures.map(measureColumnDefinition), ...histogram].join(',\n  ')},
  PRIMARY KEY (${table.dimensions.join(', ')})
)${table.rowid ? '' : ' WITHOUT ROWID'};`;
}

/** A measure's column, as CREATE TABLE and ALTER TABLE … ADD COLUMN write it. */
export function measureColumnDefinition(name: MeasureName): string {
  const measure = measures.find((candidate) => candidate.name === name)!;
  return `${name} ${measure.type === 'real' ? 'REAL' : 'INTEGER'} NOT NULL DEFAULT 0`;
}

const registered = new WeakSet<SqliteDatabase>();

/**
 * Registers on a connection (once) the functions the rollups use:
 * - `latency_histogram_add(a, b)`: the merge of two encoded histograms (either may be NULL);
 * - `latency_histogram_merge(h)`: an aggregate, the merge of a column of encoded histograms;
 * - `latency_histogram_of(latency_ms)`: an aggregate, the histogram of raw latencies (migrations).
 */
export function registerHistogramFunctions(database: SqliteDatabase): void {
  if (registered.has(database)) return;
  registered.add(database);
  database.function('latency_histogram_add', { deterministic: true }, (left: unknown, right: unknown) =>
    addEncodedHistograms(left as Uint8Array | null, right as Uint8Array | null),
  );
  database.aggregate('latency_histogram_merge', {
    start: () => new Map(),
    step: (histogram: LatencyHistogram, encoded: unknown) => {
      addEncoded(histogram, encoded as Uint8Array | null);
    },
    result: (histogram: LatencyHistogram) => (histogram.size === 0 ? null : encodeHistogram(histogram)),
  });
  database.aggregate('latency_histogram_of', {
    start: () => new Map(),
    step: (histogram: LatencyHistogram, latencyMs: unknown) => {
      if (typeof latencyMs !== 'number') return;
      const bucket = latencyBucketOf(latencyMs);
      histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1);
    },
    result: (histogram: LatencyHistogram) => (histogram.size === 0 ? null : encodeHistogram(histogram)),
  });
}
