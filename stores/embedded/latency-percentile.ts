/**
 * @module stores/embedded/latency-percentile
 * The overview's 95th-percentile latency (nearest rank, over the raw requests that started in
 * [the first hour counted, `to`)), without sorting those requests. The rollups' latency histograms
 * say how many requests fall in each bucket; that finds the bucket holding the rank, and only the raw
 * latencies of that bucket are read, through the `requests_hour_latency` index. The answer is the
 * value the full sort gives; should a bucket's count ever disagree with its raw rows, the full sort
 * runs instead.
 */
import {
  addEncoded,
  countOf,
  type LatencyHistogram,
  latencyBucketBounds,
  latencyBucketOf,
  locateRank,
} from '../../projector/read-models/usage/latency-histogram.ts';
import type { SqliteDatabase } from './database.ts';
import { branchesOf, type OverviewFilters, perUserSources, seriesSources, unionOf } from './rollup-sources.ts';
import { REQUEST_HOUR } from './schema.ts';
import { hoursOf, type Interval, type RangePlan } from './usage-range.ts';

/** The raw-row conditions of the filters (the raw table names its model `model_requested`). */
function filterConditions(filters: OverviewFilters): string[] {
  const conditions: string[] = [];
  if (filters.userId !== null) conditions.push('user_id = @userId');
  if (filters.model !== null) conditions.push('model_requested = @model');
  if (filters.tokenId !== null) conditions.push('token_id = @tokenId');
  return conditions;
}

export function filterParameters(filters: OverviewFilters): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (filters.userId !== null) parameters['userId'] = filters.userId;
  if (filters.model !== null) parameters['model'] = filters.model;
  if (filters.tokenId !== null) parameters['tokenId'] = filters.tokenId;
  return parameters;
}

const applied = ['latency_ms IS NOT NULL', 'request_applied = 1'];

export class LatencyPercentile {
  readonly #database: SqliteDatabase;
  /** How often the rollups disagreed with the raw rows and the full sort answered (tests read it). */
  fallbacks = 0;

  constructor(database: SqliteDatabase) {
    this.#database = database;
  }

  /**
   * Math.round of the 95th percentile, or null when no request of the range has a latency. `calls`
   * is the overview's count of calls over the whole hours of the range: every call has a latency, so
   * the histogram must account for each of them, or the full sort answers instead.
   */
  p95(plan: RangePlan, to: number, filters: OverviewFilters, calls: number): number | null {
    const range = { start: plan.firstHour, end: Math.min(to, plan.hoursEnd) };
    const { histogram, afterTo } = this.#histogram(plan, range.end, filters);
    const count = countOf(histogram);
    if (count + afterTo !== calls) return this.#sorted(range, filters);
    if (count === 0) return null;
    const rank = Math.ceil(0.95 * count);
    const located = locateRank(histogram, rank);
    if (!located) return this.#sorted(range, filters);
    const { low, high } = latencyBucketBounds(located.bucket);
    // A bucket one millisecond wide: every latency in it rounds to `low`.
    if (high - low === 1) return low;
    // Math.round(x) is in [low, high) exactly when x is in [low - 0.5, high - 0.5).
    const values = this.#raw([range], filters, ['latency_ms >= @low', 'latency_ms < @high'], {
      low: low - 0.5,
      high: high - 0.5,
    });
    if (values.length !== histogram.get(located.bucket)) return this.#sorted(range, filters);
    values.sort((a, b) => a - b);
    return Math.round(values[located.rankInBucket - 1]!);
  }

  /**
   * The histogram of the raw rows in [plan.firstHour, to): the rollups' histograms where they have
   * them (whole hours), raw rows for the hours they leave out, less the raw rows of the last hour
   * that started at or after `to` when a rollup counted that whole hour (normally none: `to` is now).
   * Also how many rows that last hour has after `to`.
   */
  #histogram(plan: RangePlan, to: number, filters: OverviewFilters): { histogram: LatencyHistogram; afterTo: number } {
    // Every user together: the per-model tables cover every hour. Else only the per-user daily table
    // has histograms, for the whole days; the ragged ends are read raw.
    const everyone = filters.userId === null && filters.tokenId === null;
    const sources = everyone ? seriesSources(filters) : perUserSources(filters);
    const branches = branchesOf(plan, sources, true).filter((branch) => everyone || branch.period === 'day');
    const histogram: LatencyHistogram = new Map();
    const union = unionOf(branches, () => 'latency_histogram', sources.conditions);
    if (union) {
      const encoded = this.#database
        .prepare(`SELECT latency_histogram_merge(latency_histogram) FROM (${union.sql})`)
        .pluck()
        .get({ ...union.parameters, ...filterParameters(filters) }) as Uint8Array | null;
      addEncoded(histogram, encoded);
    }
    const uncovered = everyone ? [] : plan.days === null ? [{ start: plan.firstHour, end: plan.hoursEnd }] : plan.edges;
    const rawEnds = uncovered
      .map((interval) => ({ start: interval.start, end: Math.min(interval.end, to) }))
      .filter((interval) => interval.end > interval.start);
    for (const value of this.#raw(rawEnds, filters, [], {})) addOne(histogram, value, 1);
    const after = to < plan.hoursEnd ? this.#raw([{ start: to, end: plan.hoursEnd }], filters, [], {}) : [];
    if (branches.some((branch) => branch.interval.end === plan.hoursEnd)) {
      for (const value of after) addOne(histogram, value, -1);
    }
    return { histogram, afterTo: after.length };
  }

  /** Raw latencies of the applied requests that started in the intervals, read from the hour index. */
  #raw(
    intervals: readonly Interval[],
    filters: OverviewFilters,
    extra: readonly string[],
    extraParameters: Record<string, number>,
  ): number[] {
    if (intervals.length === 0) return [];
    const conditions = [
      `${REQUEST_HOUR} IN (SELECT value FROM json_each(@hours))`,
      'started_at >= @from',
      'started_at < @to',
      ...applied,
      ...filterConditions(filters),
      ...extra,
    ];
    return (
      this.#database
        // Named: given a user, the planner would rather walk that user's rows by time and look each
        // one up in the table, which reads far more than the index of the hours.
        .prepare(`SELECT latency_ms FROM requests INDEXED BY requests_hour_latency WHERE ${conditions.join(' AND ')}`)
        .pluck()
        .all({
          hours: hoursOf(intervals),
          from: Math.min(...intervals.map((interval) => interval.start)),
          to: Math.max(...intervals.map((interval) => interval.end)),
          ...filterParameters(filters),
          ...extraParameters,
        }) as number[]
    );
  }

  /** The count and the full sort, as the overview did before the histograms (the fallback). */
  #sorted(range: Interval, filters: OverviewFilters): number | null {
    this.fallbacks++;
    const where = ['started_at >= @from', 'started_at < @to', ...applied, ...filterConditions(filters)].join(' AND ');
    const parameters = { from: range.start, to: range.end, ...filterParameters(filters) };
    const count = this.#database
      .prepare(`SELECT count(*) FROM requests WHERE ${where}`)
      .pluck()
      .get(parameters) as number;
    if (count === 0) return null;
    const value = this.#database
      .prepare(`SELECT latency_ms FROM requests WHERE ${where} ORDER BY latency_ms LIMIT 1 OFFSET @offset`)
      .pluck()
      .get({ ...parameters, offset: Math.ceil(0.95 * count) - 1 }) as number;
    return Math.round(value);
  }
}

function addOne(histogram: LatencyHistogram, latencyMs: number, count: number): void {
  const bucket = latencyBucketOf(latencyMs);
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}
