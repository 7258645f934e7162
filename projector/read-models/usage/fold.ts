/**
 * @module projector/read-models/usage/fold
 * How both stores turn the summed rollup rows they read into the overview: the series (bucket ×
 * model) is folded into the totals, the split by model and the average latency here, once, so the
 * two stores cannot disagree on what a measure means in the answer.
 */
import type { UsageOverview, UsageTotals } from '../../../contracts/console-api.ts';
import { type MeasureName, measureNames, type Sums } from './measures.ts';
import { usdOfNano } from './rollup.ts';
import type { DayBuckets } from './time-zone.ts';

/** One row of the series: the start of its bucket (epoch ms), its model, its sums. */
export interface SeriesRow {
  bucket: number;
  model: string;
  sums: Sums;
}

/**
 * Every measure at zero, the one shape all sums share: copying it keeps the objects of a fold on one
 * hidden class. Built from entries each time, folding the hourly overview's 3,600 rows took twice as
 * long (25 ms against 12 at the median, a microbenchmark on the bench machine).
 */
const ZERO_SUMS: Readonly<Sums> = Object.freeze(Object.fromEntries(measureNames.map((name) => [name, 0])) as Sums);

export function zeroSums(): Sums {
  return { ...ZERO_SUMS };
}

/**
 * The sums of a row as a store returns it (ClickHouse sends 64-bit integers as strings); a measure
 * the row lacks (the per-key rollup keeps only some) is zero.
 */
export function sumsOfRow(row: object): Sums {
  const sums = zeroSums();
  for (const name of measureNames) {
    const value = (row as Partial<Record<MeasureName, unknown>>)[name];
    if (value !== undefined && value !== null) sums[name] = Number(value);
  }
  return sums;
}

export function addSums(into: Sums, from: Sums): void {
  for (const name of measureNames) into[name] += from[name];
}

/** The overview's view of a group's sums. */
export function totalsOf(sums: Sums): UsageTotals {
  return withTotals({}, sums);
}

/**
 * A key's totals (`by_token`): the all-users per-key rollups keep only the per-key measures
 * (measures.ts), so the cache counts, which they do not keep, are left out rather than shown as 0.
 */
export function keyTotalsOf(sums: Sums): UsageTotals {
  const totals = withTotals({}, sums);
  delete totals.cached_tokens;
  delete totals.cache_write_tokens;
  return totals;
}

/**
 * `head` with the overview's view of `sums` added after its own properties. Added one by one rather
 * than spread into a literal after them: a spread into an object that already has properties takes
 * V8's slow path, and the hourly series of 30 days is 3,600 such objects.
 */
function withTotals<Head extends object>(head: Head, sums: Sums): Head & UsageTotals {
  const point = head as Head & UsageTotals;
  point.calls = sums.calls;
  point.errors = sums.errors;
  point.prompt_tokens = sums.prompt_tokens;
  point.completion_tokens = sums.completion_tokens;
  point.total_tokens = sums.prompt_tokens + sums.completion_tokens;
  point.cost_usd = usdOfNano(sums.cost_nano_usd);
  point.unpriced_requests = sums.unpriced_requests;
  point.refused_requests = sums.refused_requests;
  point.cached_tokens = sums.cached_tokens;
  point.cache_write_tokens = sums.cache_write_tokens;
  return point;
}

/** Code-point order: the same in every locale and in both stores' SQL. */
export function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The parts of the overview that follow from its series, whichever store read it. */
export function foldSeries(
  rows: readonly SeriesRow[],
): Pick<UsageOverview, 'totals' | 'series' | 'by_model'> & { averageLatencyMs: number | null; calls: number } {
  const models = new Map<string, Sums>();
  for (const row of rows) {
    let model = models.get(row.model);
    if (!model) {
      model = zeroSums();
      models.set(row.model, model);
    }
    addSums(model, row.sums);
  }
  // The totals from the few models' sums rather than from every row: half the additions of a
  // 3,600-row hourly series.
  const totals = zeroSums();
  for (const sums of models.values()) addSums(totals, sums);
  const byModel = [...models].map(([model, sums]) => withTotals({ model }, sums));
  byModel.sort((left, right) => right.total_tokens - left.total_tokens || compareText(left.model, right.model));
  return {
    totals: totalsOf(totals),
    series: seriesPoints(rows),
    by_model: byModel,
    averageLatencyMs: totals.calls === 0 ? null : Math.round(totals.latency_ms_sum / totals.calls),
    calls: totals.calls,
  };
}

/** The series as the overview shows it, each bucket's time written once for all its models. */
function seriesPoints(rows: readonly SeriesRow[]): UsageOverview['series'] {
  const points: UsageOverview['series'] = new Array(rows.length);
  let lastBucket = Number.NaN;
  let bucketText = '';
  for (let index = 0; index < rows.length; index++) {
    const { bucket, model, sums } = rows[index]!;
    if (bucket !== lastBucket) {
      lastBucket = bucket;
      bucketText = new Date(bucket).toISOString();
    }
    points[index] = withTotals({ bucket: bucketText, model }, sums);
  }
  return points;
}

/** Hourly rows summed into the days of a time zone, in (day, model) order. */
export function foldIntoDays(rows: readonly SeriesRow[], days: DayBuckets): SeriesRow[] {
  const byDay = new Map<string, SeriesRow>();
  for (const row of rows) {
    const bucket = days.dayOf(row.bucket);
    const id = `${bucket}\u0000${row.model}`;
    let day = byDay.get(id);
    if (!day) {
      day = { bucket, model: row.model, sums: zeroSums() };
      byDay.set(id, day);
    }
    addSums(day.sums, row.sums);
  }
  return [...byDay.values()].sort((left, right) => left.bucket - right.bucket || compareText(left.model, right.model));
}
