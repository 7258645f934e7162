/**
 * @module stores/embedded/usage-overview
 * The data overview from the SQLite rollups. Three reads answer it: the series (by bucket and model,
 * from which the totals, the split by model and the average latency are summed), the top keys, and
 * the 95th percentile (latency-percentile.ts). Each reads whole days from a daily rollup and the
 * ragged ends of the range from an hourly one (usage-range.ts), and an overview of every user reads
 * the per-model tables, so no read grows with the number of requests.
 */
import type { UsageOverview, UsageOverviewQuery } from '../../contracts/console-api.ts';
import {
  foldIntoDays,
  foldSeries,
  keyTotalsOf,
  type SeriesRow,
  sumsOfRow,
} from '../../projector/read-models/usage/fold.ts';
import { measureNames, perKeyMeasureNames, type Sums, sumsSql } from '../../projector/read-models/usage/measures.ts';
import { defaultGranularity, HOUR_MS } from '../../projector/read-models/usage/rollup.ts';
import { dayBucketsIn, isUtc } from '../../projector/read-models/usage/time-zone.ts';
import type { SqliteDatabase } from './database.ts';
import { filterParameters, LatencyPercentile } from './latency-percentile.ts';
import { branchesOf, type OverviewFilters, perUserSources, seriesSources, unionOf } from './rollup-sources.ts';
import { planRange } from './usage-range.ts';
import { DAY_MS } from './usage-rollups.ts';

type SqlSeriesRow = Sums & { bucket: number; model: string };

const sums = sumsSql();
const measureColumns = measureNames.join(', ');

export class SqliteUsageOverview {
  readonly #database: SqliteDatabase;
  readonly percentile: LatencyPercentile;

  constructor(database: SqliteDatabase) {
    this.#database = database;
    this.percentile = new LatencyPercentile(database);
  }

  overview(query: UsageOverviewQuery & { userId: string | null }): UsageOverview {
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    const granularity = query.granularity ?? defaultGranularity(from, to);
    const filters: OverviewFilters = {
      userId: query.userId,
      model: query.model || null,
      tokenId: query.token_id || null,
    };
    const plan = planRange(from, to);
    // Days of another zone than UTC are summed from the hourly rollups (time-zone.ts).
    const days = granularity === 'day' && !isUtc(query.tz) ? dayBucketsIn(query.tz!) : null;
    const hourly = granularity === 'hour' || days !== null;
    const rows = this.#series(plan, filters, hourly ? HOUR_MS : DAY_MS);
    const folded = foldSeries(days ? foldIntoDays(rows, days) : rows);
    return {
      from: new Date(plan.firstHour).toISOString(),
      to: new Date(to).toISOString(),
      granularity,
      totals: folded.totals,
      series: folded.series,
      by_model: folded.by_model,
      latency: {
        average_ms: folded.averageLatencyMs,
        p95_ms: this.percentile.p95(plan, to, filters, folded.calls),
      },
      by_token: this.#topTokens(plan, filters, query.top_keys_by === 'cost'),
      time_zone: query.tz ?? 'UTC',
      time_zone_exact: days?.exact ?? true,
    };
  }

  /** Sums by bucket and model; day buckets read the daily rollups, hour buckets the hourly ones. */
  #series(plan: ReturnType<typeof planRange>, filters: OverviewFilters, bucketSize: number): SeriesRow[] {
    const sources = seriesSources(filters);
    const branches = branchesOf(plan, sources, bucketSize === DAY_MS);
    const union = unionOf(
      branches,
      (period) => `${period} - (${period} % ${bucketSize}) AS bucket, model, ${measureColumns}`,
      sources.conditions,
    );
    if (!union) return [];
    const rows = this.#database
      .prepare(`SELECT bucket, model, ${sums} FROM (${union.sql}) GROUP BY bucket, model ORDER BY bucket, model`)
      .all({ ...union.parameters, ...filterParameters(filters) }) as SqlSeriesRow[];
    return rows.map((row) => ({ bucket: row.bucket, model: row.model, sums: sumsOfRow(row) }));
  }

  /**
   * The ten keys that used the most tokens, or spent the most then used the most tokens (then the
   * most calls; then by id, for a stable order).
   * The sums are spelled out: in an expression, SQLite reads `prompt_tokens` as the column of one
   * row of the group, not as the alias of its sum.
   */
  #topTokens(plan: ReturnType<typeof planRange>, filters: OverviewFilters, bySpend: boolean) {
    const sources = perUserSources(filters);
    const union = unionOf(branchesOf(plan, sources, true), () => `token_id, ${perKeyMeasureNames.join(', ')}`, [
      ...sources.conditions,
      "token_id != ''",
    ]);
    if (!union) return [];
    const rows = this.#database
      .prepare(
        `SELECT token_id, ${sumsSql(perKeyMeasureNames)} FROM (${union.sql}) GROUP BY token_id
         ORDER BY ${bySpend ? 'sum(cost_nano_usd) DESC, ' : ''}sum(prompt_tokens) + sum(completion_tokens) DESC,
           sum(calls) DESC, token_id LIMIT 10`,
      )
      .all({ ...union.parameters, ...filterParameters(filters) }) as Array<Sums & { token_id: string }>;
    return rows.map((row) => ({ token_id: row.token_id, ...keyTotalsOf(sumsOfRow(row)) }));
  }
}
