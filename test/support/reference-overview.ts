/**
 * @module test/support/reference-overview
 * The embedded data overview as it was computed before the daily and per-model rollups: everything
 * from `usage_hourly`, the 95th percentile by sorting the raw requests of the range. Slow, and kept
 * only as the reference the fast overview must match number for number.
 */
import type { UsageOverview, UsageOverviewQuery, UsageTotals } from '../../contracts/console-api.ts';
import { defaultGranularity, HOUR_MS } from '../../projector/read-models/usage/rollup.ts';
import type { SqliteDatabase } from '../../stores/embedded/database.ts';

interface TotalsRow {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nano_usd: number;
  unpriced_requests: number;
  refused_requests: number;
  cached_tokens: number;
  cache_write_tokens: number;
}

function totalsOf(row: TotalsRow): UsageTotals {
  return {
    calls: row.calls,
    errors: row.errors,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
    cost_usd: row.cost_nano_usd / 1e9,
    unpriced_requests: row.unpriced_requests,
    refused_requests: row.refused_requests,
    cached_tokens: row.cached_tokens,
    cache_write_tokens: row.cache_write_tokens,
  };
}

/** A key's totals: the per-key rollups keep no cache counts, so the overview leaves them out. */
function keyTotalsOf(row: TotalsRow): UsageTotals {
  const { cached_tokens, cache_write_tokens, ...totals } = totalsOf(row);
  return totals;
}

const sums = `coalesce(sum(calls), 0) AS calls, coalesce(sum(errors), 0) AS errors,
  coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens,
  coalesce(sum(cost_nano_usd), 0) AS cost_nano_usd, coalesce(sum(unpriced_requests), 0) AS unpriced_requests,
  coalesce(sum(refused_requests), 0) AS refused_requests, coalesce(sum(cached_tokens), 0) AS cached_tokens,
  coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens`;

export function referenceOverview(
  database: SqliteDatabase,
  query: UsageOverviewQuery & { userId: string | null },
): UsageOverview {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const granularity = query.granularity ?? defaultGranularity(from, to);
  const conditions = ['hour >= @from', 'hour < @to'];
  if (query.userId !== null) conditions.push('user_id = @userId');
  if (query.model) conditions.push('model = @model');
  if (query.token_id) conditions.push('token_id = @tokenId');
  const where = conditions.join(' AND ');
  const parameters = {
    from: from - (from % HOUR_MS),
    to,
    userId: query.userId,
    model: query.model ?? null,
    tokenId: query.token_id ?? null,
  };
  const bucketSize = granularity === 'day' ? 24 * HOUR_MS : HOUR_MS;
  const totals = database.prepare(`SELECT ${sums} FROM usage_hourly WHERE ${where}`).get(parameters) as TotalsRow;
  const series = database
    .prepare(
      `SELECT hour - (hour % ${bucketSize}) AS bucket, model, ${sums} FROM usage_hourly WHERE ${where}
       GROUP BY bucket, model ORDER BY bucket, model`,
    )
    .all(parameters) as Array<TotalsRow & { bucket: number; model: string }>;
  // The model as the tie-breaker, as the fast overview sorts (the old query left ties unordered).
  const byModel = database
    .prepare(
      `SELECT model, ${sums} FROM usage_hourly WHERE ${where} GROUP BY model
       ORDER BY sum(prompt_tokens) + sum(completion_tokens) DESC, model`,
    )
    .all(parameters) as Array<TotalsRow & { model: string }>;
  // The old query ordered by `prompt_tokens + completion_tokens`, which SQLite reads as the columns of
  // one row of each group, not as the sums: the reference orders by the sums, as the fast one does.
  const byToken = database
    .prepare(
      `SELECT token_id, ${sums} FROM usage_hourly WHERE ${where} AND token_id != '' GROUP BY token_id
       ORDER BY sum(prompt_tokens) + sum(completion_tokens) DESC, sum(calls) DESC, token_id LIMIT 10`,
    )
    .all(parameters) as Array<TotalsRow & { token_id: string }>;
  const average = database
    .prepare(`SELECT sum(latency_ms_sum) / sum(calls) AS average FROM usage_hourly WHERE ${where}`)
    .pluck()
    .get(parameters) as number | null;
  const raw = ['started_at >= @from', 'started_at < @to', 'latency_ms IS NOT NULL', 'request_applied = 1'];
  if (parameters.userId !== null) raw.push('user_id = @userId');
  if (parameters.model !== null) raw.push('model_requested = @model');
  if (parameters.tokenId !== null) raw.push('token_id = @tokenId');
  const rawWhere = raw.join(' AND ');
  const count = database.prepare(`SELECT count(*) FROM requests WHERE ${rawWhere}`).pluck().get(parameters) as number;
  const p95 =
    count === 0
      ? null
      : (database
          .prepare(`SELECT latency_ms FROM requests WHERE ${rawWhere} ORDER BY latency_ms LIMIT 1 OFFSET @offset`)
          .pluck()
          .get({ ...parameters, offset: Math.ceil(0.95 * count) - 1 }) as number);
  return {
    from: new Date(parameters.from).toISOString(),
    to: new Date(to).toISOString(),
    granularity,
    totals: totalsOf(totals),
    series: series.map((row) => ({ bucket: new Date(row.bucket).toISOString(), model: row.model, ...totalsOf(row) })),
    by_model: byModel.map((row) => ({ model: row.model, ...totalsOf(row) })),
    latency: {
      average_ms: average === null ? null : Math.round(average),
      p95_ms: p95 === null ? null : Math.round(p95),
    },
    by_token: byToken.map((row) => ({ token_id: row.token_id, ...keyTotalsOf(row) })),
    time_zone: 'UTC',
    time_zone_exact: true,
  };
}
