/**
 * @module stores/embedded/usage-overview
 * The data overview from the SQLite rollups. Three reads answer it: the series (by bucket and model,
 * from which the totals, the split by model and the average latency are summed), the top keys, and
 * the 95th percentile (latency-percentile.ts). Each reads whole days from a daily rollup and the
 * ragged ends of the range from an hourly one (usage-range.ts), and an overview of every user reads
 * the per-model tables, so no read grows with the number of requests.
 */
import type { UsageOverview, UsageOverviewQuery, UsageTotals } from '../../contracts/console-api.ts';
import { defaultGranularity, HOUR_MS, usdOfNano } from '../../projector/read-models/usage/rollup.ts';
import type { SqliteDatabase } from './database.ts';
import { filterParameters, LatencyPercentile } from './latency-percentile.ts';
import { branchesOf, type OverviewFilters, perUserSources, seriesSources, unionOf } from './rollup-sources.ts';
import { planRange } from './usage-range.ts';
import { DAY_MS } from './usage-rollups.ts';

interface TotalsRow {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nano_usd: number;
  unpriced_requests: number;
}

interface SeriesRow extends TotalsRow {
  bucket: number;
  model: string;
  latency_ms_sum: number;
}

function totalsOf(row: TotalsRow): UsageTotals {
  return {
    calls: row.calls,
    errors: row.errors,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
    cost_usd: usdOfNano(row.cost_nano_usd),
    unpriced_requests: row.unpriced_requests,
  };
}

function add(sum: TotalsRow & { latency_ms_sum: number }, row: SeriesRow): void {
  sum.calls += row.calls;
  sum.errors += row.errors;
  sum.prompt_tokens += row.prompt_tokens;
  sum.completion_tokens += row.completion_tokens;
  sum.cost_nano_usd += row.cost_nano_usd;
  sum.unpriced_requests += row.unpriced_requests;
  sum.latency_ms_sum += row.latency_ms_sum;
}

const zero = () => ({
  calls: 0,
  errors: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost_nano_usd: 0,
  unpriced_requests: 0,
  latency_ms_sum: 0,
});
const sums = `sum(calls) AS calls, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens,
  sum(completion_tokens) AS completion_tokens, sum(cost_nano_usd) AS cost_nano_usd,
  sum(unpriced_requests) AS unpriced_requests`;

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
    const series = this.#series(plan, filters, granularity === 'day' ? DAY_MS : HOUR_MS);
    const totals = zero();
    const models = new Map<string, ReturnType<typeof zero>>();
    for (const row of series) {
      add(totals, row);
      if (!models.has(row.model)) models.set(row.model, zero());
      add(models.get(row.model)!, row);
    }
    const byModel = [...models].map(([model, sum]) => ({ model, ...totalsOf(sum) }));
    byModel.sort((a, b) => b.total_tokens - a.total_tokens || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
    return {
      from: new Date(plan.firstHour).toISOString(),
      to: new Date(to).toISOString(),
      granularity,
      totals: totalsOf(totals),
      series: series.map((row) => ({ bucket: new Date(row.bucket).toISOString(), model: row.model, ...totalsOf(row) })),
      by_model: byModel,
      latency: {
        average_ms: totals.calls === 0 ? null : Math.round(totals.latency_ms_sum / totals.calls),
        p95_ms: this.percentile.p95(plan, to, filters, totals.calls),
      },
      by_token: this.#topTokens(plan, filters),
    };
  }

  /** Sums by bucket and model; day buckets read the daily rollups, hour buckets the hourly ones. */
  #series(plan: ReturnType<typeof planRange>, filters: OverviewFilters, bucketSize: number): SeriesRow[] {
    const sources = seriesSources(filters);
    const branches = branchesOf(plan, sources, bucketSize === DAY_MS);
    const union = unionOf(
      branches,
      (period) => `${period} - (${period} % ${bucketSize}) AS bucket, model, calls, errors, prompt_tokens,
        completion_tokens, cost_nano_usd, unpriced_requests, latency_ms_sum`,
      sources.conditions,
    );
    if (!union) return [];
    return this.#database
      .prepare(
        `SELECT bucket, model, ${sums}, sum(latency_ms_sum) AS latency_ms_sum FROM (${union.sql})
         GROUP BY bucket, model ORDER BY bucket, model`,
      )
      .all({ ...union.parameters, ...filterParameters(filters) }) as SeriesRow[];
  }

  /**
   * The ten keys that used the most tokens (then the most calls; then by id, for a stable order).
   * The sums are spelled out: in an expression, SQLite reads `prompt_tokens` as the column of one
   * row of the group, not as the alias of its sum.
   */
  #topTokens(plan: ReturnType<typeof planRange>, filters: OverviewFilters) {
    const sources = perUserSources(filters);
    const union = unionOf(
      branchesOf(plan, sources, true),
      () => 'token_id, calls, errors, prompt_tokens, completion_tokens, cost_nano_usd, unpriced_requests',
      [...sources.conditions, "token_id != ''"],
    );
    if (!union) return [];
    const rows = this.#database
      .prepare(
        `SELECT token_id, ${sums} FROM (${union.sql}) GROUP BY token_id
         ORDER BY sum(prompt_tokens) + sum(completion_tokens) DESC, sum(calls) DESC, token_id LIMIT 10`,
      )
      .all({ ...union.parameters, ...filterParameters(filters) }) as Array<TotalsRow & { token_id: string }>;
    return rows.map((row) => ({ token_id: row.token_id, ...totalsOf(row) }));
  }
}
