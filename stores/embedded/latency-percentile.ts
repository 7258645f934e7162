/**
 * @module stores/embedded/latency-percentile
 * The overview's 95th-percentile latency (nearest rank, over the requests that started in [the first
 * hour counted, `to`)), from the rollups' latency histograms alone: they say which bucket holds the
 * rank, and the answer is placed within that bucket by the rank's position among the bucket's count.
 * Below 32 ms a bucket is one millisecond wide and the answer is exact; above, it is within the
 * bucket, at most 1/16 of its value away (ClickHouse's overview is within 1%). The raw requests are
 * read only for the part of the last hour after `to`, and, should a histogram ever disagree with the
 * overview's count of calls, for the exact full sort instead.
 *
 * Exact answers once came from the raw latencies of the bucket, through an index keyed by hour and
 * latency; every request landed on a random page of that index, and the projector paid for it.
 */
import {
  addEncoded,
  addLatency,
  countOf,
  type LatencyHistogram,
  latencyBucketBounds,
  locateRank,
} from '../../projector/read-models/usage/latency-histogram.ts';
import type { SqliteDatabase } from './database.ts';
import { branchesOf, type OverviewFilters, seriesSources, unionOf } from './rollup-sources.ts';
import type { Interval, RangePlan } from './usage-range.ts';

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
    const located = locateRank(histogram, Math.ceil(0.95 * count));
    if (!located) return this.#sorted(range, filters);
    const { low, high } = latencyBucketBounds(located.bucket);
    // The rank's place among the bucket's requests, as if they were spread evenly across it; an
    // integer in [low, high), so always in the bucket the exact answer is in.
    const inBucket = histogram.get(located.bucket)!;
    return low + Math.floor(((high - low) * (located.rankInBucket - 0.5)) / inBucket);
  }

  /**
   * The histogram of the requests in [plan.firstHour, to), from the rollups (whole days from a daily
   * table, the other hours from an hourly one), less the requests of the last hour that started at
   * or after `to` when a rollup counted that whole hour (normally none: `to` is now). Also how many
   * requests that last hour has after `to`.
   */
  #histogram(plan: RangePlan, to: number, filters: OverviewFilters): { histogram: LatencyHistogram; afterTo: number } {
    const sources = seriesSources(filters);
    const branches = branchesOf(plan, sources, true);
    const histogram: LatencyHistogram = new Map();
    const union = unionOf(branches, () => 'latency_histogram', sources.conditions);
    if (union) {
      const encoded = this.#database
        .prepare(`SELECT latency_histogram_merge(latency_histogram) FROM (${union.sql})`)
        .pluck()
        .get({ ...union.parameters, ...filterParameters(filters) }) as Uint8Array | null;
      addEncoded(histogram, encoded);
    }
    const after = to < plan.hoursEnd ? this.#raw({ start: to, end: plan.hoursEnd }, filters) : [];
    if (branches.some((branch) => branch.interval.end === plan.hoursEnd)) {
      for (const value of after) addLatency(histogram, value, -1);
    }
    return { histogram, afterTo: after.length };
  }

  /** Raw latencies of the applied requests that started in the interval (at most an hour). */
  #raw(interval: Interval, filters: OverviewFilters): number[] {
    const where = ['started_at >= @from', 'started_at < @to', ...applied, ...filterConditions(filters)];
    return this.#database
      .prepare(`SELECT latency_ms FROM requests WHERE ${where.join(' AND ')}`)
      .pluck()
      .all({ from: interval.start, to: interval.end, ...filterParameters(filters) }) as number[];
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
