/**
 * @module stores/cluster/clickhouse-overview
 * The data overview read from ClickHouse, in three queries sent at once: the series (hour or day ×
 * model; the totals, the split by model and the average latency are summed from it here), the top
 * keys, and the 95th percentile of latency.
 *
 * Which tables answer depends on the filter, so that no query reads more than a few thousand rows for
 * the common views:
 * - all users, no model or key filter (the admin's overview): the all-users rollups, hour × model
 *   (`usage_hourly_models`, whose latency histograms give the percentile, within 1%) and hour × key
 *   (`usage_hourly_tokens`), their daily sums for the whole days of the range
 *   (clickhouse-overview-days.ts);
 * - all users with a model filter: the same, the top keys from `usage_hourly`;
 * - one user (a user's own overview), or a key filter: `usage_hourly`, which is ordered by user, the
 *   percentile from its latency histograms too. Its hours from before those histograms existed hold
 *   none (the counts fall short of the calls), and then the percentile is counted from the user's raw
 *   requests into the same buckets (no FINAL: a redelivered row not merged yet cannot move a
 *   percentile by anything that shows). For the busiest of 10 million requests' users that read 1.7
 *   million raw rows, and grew with the user's traffic.
 * Rollups are read with FINAL, so a replaced row never counts twice.
 */
import type { UsageOverview, UsageOverviewQuery } from '../../contracts/console-api.ts';
import {
  foldIntoDays,
  foldSeries,
  keyTotalsOf,
  type SeriesRow,
  sumsOfRow,
  zeroSums,
} from '../../projector/read-models/usage/fold.ts';
import { measureNames, perKeyMeasureNames, sumsSql } from '../../projector/read-models/usage/measures.ts';
import { defaultGranularity, HOUR_MS } from '../../projector/read-models/usage/rollup.ts';
import { dayBucketsIn, isUtc } from '../../projector/read-models/usage/time-zone.ts';
import { histogramQuantile, latencyBucketSql } from './clickhouse-latency-histogram.ts';
import { allUsersHistograms, allUsersTokens } from './clickhouse-overview-days.ts';
import { integerLiteral, stringLiteral } from './clickhouse-sql.ts';
import { tsvField } from './clickhouse-tsv.ts';

export type Rows = <Row>(query: string) => Promise<Row[]>;
/** A query's answer in TabSeparated, as rows of fields still escaped (clickhouse-tsv.ts). */
export type TextRows = (query: string) => Promise<string[][]>;

/** The series' sums and the top keys' (the per-key rollup keeps only the measures it shows). */
const seriesSums = sumsSql();
const perKeySums = sumsSql(perKeyMeasureNames);

/** Where each part of the overview is read from, for this filter; `from` and `end` in epoch seconds. */
function sources(db: string, query: UsageOverviewQuery & { userId: string | null }, from: number, end: number) {
  const range = `hour >= ${integerLiteral(from)} AND hour < ${integerLiteral(end)}`;
  const filters = [range];
  if (query.userId !== null) filters.push(`user_id = ${stringLiteral(query.userId)}`);
  if (query.model) filters.push(`model = ${stringLiteral(query.model)}`);
  if (query.token_id) filters.push(`token_id = ${stringLiteral(query.token_id)}`);
  const perKey = `${db}.usage_hourly FINAL WHERE ${filters.join(' AND ')}`;
  if (query.userId !== null || query.token_id)
    return { series: perKey, tokens: perKey, histogram: null, perKeyHistogram: perKey };
  const model = query.model ? stringLiteral(query.model) : null;
  return {
    series: `${db}.usage_hourly_models FINAL WHERE ${range}${model ? ` AND model = ${model}` : ''}`,
    tokens: query.model ? perKey : allUsersTokens(db, from, end),
    histogram: allUsersHistograms(db, from, end, model),
    perKeyHistogram: null,
  };
}

/**
 * The series' rows from TabSeparated: by hour, 30 days are 3,600 rows of ten sums, and
 * `JSONEachRow` (quoted 64-bit integers, a `JSON.parse` per row) took 31 ms at the median over 10
 * million requests against 15 for the same rows as text; the sums are read straight into one shape.
 */
function seriesRowsOf(fields: readonly string[][]): SeriesRow[] {
  return fields.map((row) => {
    const sums = zeroSums();
    for (let index = 0; index < measureNames.length; index++) sums[measureNames[index]!] = Number(row[index + 2]);
    return { bucket: Number(row[0]) * 1000, model: tsvField(row[1]!), sums };
  });
}

export async function readOverview(
  rows: Rows,
  textRows: TextRows,
  db: string,
  query: UsageOverviewQuery & { userId: string | null },
): Promise<UsageOverview> {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const granularity = query.granularity ?? defaultGranularity(from, to);
  const alignedFrom = from - (from % HOUR_MS);
  const source = sources(db, query, alignedFrom / 1000, Math.ceil(to / 1000));
  // Days of another zone than UTC are summed here from hourly buckets (time-zone.ts).
  const days = granularity === 'day' && !isUtc(query.tz) ? dayBucketsIn(query.tz!) : null;
  const bucket = granularity === 'day' && days === null ? 'toUInt32(toStartOfDay(hour))' : 'toUInt32(hour)';
  const keyOrder = query.top_keys_by === 'cost' ? 'cost_nano_usd DESC, ' : '';
  const [series, byToken, histogram] = await Promise.all([
    textRows(
      `SELECT ${bucket} AS bucket, model, ${seriesSums}
       FROM ${source.series} GROUP BY bucket, model ORDER BY bucket, model`,
    ),
    rows<Record<string, string> & { token_id: string }>(
      `SELECT token_id, ${perKeySums} FROM ${source.tokens} AND token_id != '' GROUP BY token_id
       ORDER BY ${keyOrder}prompt_tokens + completion_tokens DESC, calls DESC, token_id LIMIT 10`,
    ),
    source.histogram ? summedHistogram(rows, source.histogram) : perKeyHistogram(rows, source.perKeyHistogram!),
  ]);
  const rowsRead = seriesRowsOf(series);
  const folded = foldSeries(days ? foldIntoDays(rowsRead, days) : rowsRead);
  // The per-key rows of hours from before the histograms existed hold none: their counts fall short of
  // the calls the series (read from the same rows) counted, and the raw rows answer instead.
  const calls = rowsRead.reduce((sum, row) => sum + row.sums.calls, 0);
  const complete = source.histogram !== null || histogram.counts.reduce((sum, count) => sum + count, 0) === calls;
  const p95 = complete
    ? histogramQuantile(histogram.buckets, histogram.counts, 0.95)
    : await rawPercentile(rows, db, query, alignedFrom, to);
  return {
    from: new Date(alignedFrom).toISOString(),
    to: new Date(to).toISOString(),
    granularity,
    totals: folded.totals,
    series: folded.series,
    by_model: folded.by_model,
    latency: { average_ms: folded.averageLatencyMs, p95_ms: p95 === null ? null : Math.round(p95) },
    by_token: byToken.map((row) => ({ token_id: row.token_id, ...keyTotalsOf(sumsOfRow(row)) })),
    time_zone: query.tz ?? 'UTC',
    time_zone_exact: days?.exact ?? true,
  };
}

interface Histogram {
  buckets: number[];
  counts: number[];
}

/** The histograms of a few thousand all-users rollup rows, summed with `sumMap`. */
async function summedHistogram(rows: Rows, source: string): Promise<Histogram> {
  const [row] = await rows<{ buckets: number[]; counts: string[] }>(
    `SELECT tupleElement(sumMap(latency_buckets, latency_counts), 1) AS buckets,
       tupleElement(sumMap(latency_buckets, latency_counts), 2) AS counts FROM ${source}`,
  );
  return { buckets: row?.buckets ?? [], counts: (row?.counts ?? []).map(Number) };
}

/**
 * The histograms of `usage_hourly` rows, summed per bucket by `ARRAY JOIN` and `GROUP BY`: the busiest
 * of 10 million requests' users has 7,200 such rows of about 90 buckets each, which `sumMap` merged in
 * 50–90 ms in ClickHouse 18.16 (most of that user's overview) and this in 33 (docs/performance.md,
 * "The busiest user's overview").
 */
async function perKeyHistogram(rows: Rows, source: string): Promise<Histogram> {
  const buckets = await rows<{ bucket: number; count: string }>(
    `SELECT bucket, sum(bucket_count) AS count FROM (SELECT latency_buckets, latency_counts FROM ${source})
     ARRAY JOIN latency_buckets AS bucket, latency_counts AS bucket_count GROUP BY bucket ORDER BY bucket`,
  );
  return { buckets: buckets.map((row) => row.bucket), counts: buckets.map((row) => Number(row.count)) };
}

async function rawPercentile(
  rows: Rows,
  db: string,
  query: UsageOverviewQuery & { userId: string | null },
  from: number,
  to: number,
): Promise<number | null> {
  const conditions = [
    // To the second, on the primary key's `started_at` only: the series beside it is read in whole
    // hours anyway, and also reading `started_at_ms` for the busiest user's 1.7 million requests
    // (10 million in all) made this query 2.5 times slower (150 against 60 ms).
    `started_at >= ${integerLiteral(Math.floor(from / 1000))} AND started_at < ${integerLiteral(Math.ceil(to / 1000))}`,
  ];
  if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
  if (query.model) conditions.push(`model_requested = ${stringLiteral(query.model)}`);
  if (query.token_id) conditions.push(`token_id = ${stringLiteral(query.token_id)}`);
  // Counted into the same buckets as the rollups' histograms: the same answer whichever table serves
  // it, and grouping is twice as fast as sorting a heavy user's million latencies.
  const buckets = await rows<{ bucket: number; count: string }>(
    `SELECT ${latencyBucketSql} AS bucket, count() AS count FROM ${db}.requests
     WHERE ${conditions.join(' AND ')} GROUP BY bucket ORDER BY bucket`,
  );
  return histogramQuantile(
    buckets.map((row) => row.bucket),
    buckets.map((row) => Number(row.count)),
    0.95,
  );
}
