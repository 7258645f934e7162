/**
 * @module projector/read-models/usage/measures
 * The one declaration of what the usage rollups sum. Both stores follow from it: the SQLite rollup
 * tables and their batch upserts (stores/embedded/usage-rollups.ts, rollup-batch.ts), the ClickHouse
 * rollup tables and their `INSERT … SELECT` recomputes (stores/cluster/clickhouse-schema.ts,
 * clickhouse-rollup-sql.ts), and the overview's folding of summed rows into totals (fold.ts). A new
 * measure is one entry here, plus its place in the overview's shape (contracts/console-api.ts and
 * `totalsOf` in fold.ts) and, for files written before it, its back-fill (see `addedLater`).
 *
 * The latency histogram is the one rollup value that is not a sum; each store keeps its own encoding
 * (latency-histogram.ts, clickhouse-latency-histogram.ts).
 */
import type { RequestCompleted, UsageRecorded } from '../../../contracts/events/index.ts';
import { isError } from './rollup.ts';

interface MeasureBase {
  /** the column name, the same in every rollup table of both stores */
  name: string;
  /** integers are exact (UInt64 / INTEGER); only latency sums are real numbers */
  type: 'integer' | 'real';
  /** in the all-users per-key rollup (ClickHouse `usage_hourly_tokens`), which keeps only what the top keys show */
  perKey: boolean;
  /**
   * Added to the rollups after their first release: ClickHouse adds the column to existing tables
   * (clickhouse-schema.ts `addedColumns`), SQLite in usage-migration.ts.
   */
  addedLater: boolean;
}

/** A measure counted from a request's `request.completed` (its call). */
export interface CallMeasure extends MeasureBase {
  source: 'request';
  of(event: RequestCompleted): number;
  /** the same amount, as a ClickHouse expression over a row of the raw `requests` table */
  clickhouse: string;
  /** the same amount, as a SQLite expression over a row of the raw `requests` table (migrations) */
  sqlite: string;
}

/** A measure counted from a request's `usage.recorded` (its tokens and cost). */
export interface UsageMeasure extends MeasureBase {
  source: 'usage';
  of(event: UsageRecorded): number;
  /** the same amount, as a ClickHouse expression over a row of the raw `usage` table */
  clickhouse: string;
  /** the same amount, as a SQLite expression over a row of the raw `requests` table whose usage was applied */
  sqlite: string;
}

export type Measure = CallMeasure | UsageMeasure;

/**
 * Whether a request was refused before any channel was picked (unknown model, unreadable body, bad
 * key, limits): it has no channel and failed.
 */
export function isRefusedBeforeRouting(event: RequestCompleted): boolean {
  return event.body.channelId === null && isError(event);
}

/** In the order of the rollup tables' columns. */
export const measures = [
  {
    name: 'calls',
    source: 'request',
    type: 'integer',
    perKey: true,
    addedLater: false,
    of: () => 1,
    clickhouse: 'toUInt64(1)',
    sqlite: '1',
  },
  {
    name: 'errors',
    source: 'request',
    type: 'integer',
    perKey: true,
    addedLater: false,
    of: (event: RequestCompleted) => (isError(event) ? 1 : 0),
    clickhouse: "toUInt64(status >= 400 OR error_type != '')",
    sqlite: '(status >= 400 OR error_type IS NOT NULL)',
  },
  {
    name: 'latency_ms_sum',
    source: 'request',
    type: 'real',
    perKey: false,
    addedLater: false,
    of: (event: RequestCompleted) => event.body.latencyMs,
    clickhouse: 'latency_ms',
    sqlite: 'latency_ms',
  },
  {
    name: 'prompt_tokens',
    source: 'usage',
    type: 'integer',
    perKey: true,
    addedLater: false,
    of: (event: UsageRecorded) => event.body.promptTokens,
    clickhouse: 'prompt_tokens',
    sqlite: 'prompt_tokens',
  },
  {
    name: 'completion_tokens',
    source: 'usage',
    type: 'integer',
    perKey: true,
    addedLater: false,
    of: (event: UsageRecorded) => event.body.completionTokens,
    clickhouse: 'completion_tokens',
    sqlite: 'completion_tokens',
  },
  {
    name: 'cached_tokens',
    source: 'usage',
    type: 'integer',
    perKey: false,
    addedLater: false,
    of: (event: UsageRecorded) => event.body.cachedTokens,
    clickhouse: 'cached_tokens',
    sqlite: 'cached_tokens',
  },
  {
    name: 'reasoning_tokens',
    source: 'usage',
    type: 'integer',
    perKey: false,
    addedLater: false,
    of: (event: UsageRecorded) => event.body.reasoningTokens,
    clickhouse: 'reasoning_tokens',
    sqlite: 'reasoning_tokens',
  },
  // Costs came with usage.recorded v2; an unpriced request adds nothing to the cost and one to the
  // unpriced count, so a sum of costs is never mistaken for a complete one. The raw SQLite cost is
  // NULL when unpriced.
  {
    name: 'cost_nano_usd',
    source: 'usage',
    type: 'integer',
    perKey: true,
    addedLater: true,
    of: (event: UsageRecorded) => event.body.costNanoUsd ?? 0,
    clickhouse: 'cost_nano_usd',
    sqlite: 'coalesce(cost_nano_usd, 0)',
  },
  {
    name: 'unpriced_requests',
    source: 'usage',
    type: 'integer',
    perKey: true,
    addedLater: true,
    of: (event: UsageRecorded) => (event.body.costNanoUsd === null ? 1 : 0),
    clickhouse: 'toUInt64(priced = 0)',
    sqlite: '(cost_nano_usd IS NULL)',
  },
  // Requests refused before a channel was picked: the overview shows them apart from the models that
  // served traffic (an unknown model name is not a model).
  {
    name: 'refused_requests',
    source: 'request',
    type: 'integer',
    perKey: true,
    addedLater: true,
    of: (event: RequestCompleted) => (isRefusedBeforeRouting(event) ? 1 : 0),
    clickhouse: "toUInt64(channel_id = '' AND (status >= 400 OR error_type != ''))",
    sqlite: "(coalesce(channel_id, '') = '' AND (status >= 400 OR error_type IS NOT NULL))",
  },
  // Prompt tokens written to a provider's cache (part of prompt_tokens), shown beside cached_tokens.
  // The raw rows of both stores carry them: SQLite sums an added rollup column from them; ClickHouse
  // rollup rows written without the column read 0 until a batch recomputes them.
  {
    name: 'cache_write_tokens',
    source: 'usage',
    type: 'integer',
    perKey: false,
    addedLater: true,
    of: (event: UsageRecorded) => event.body.cacheWriteTokens,
    clickhouse: 'cache_write_tokens',
    sqlite: 'cache_write_tokens',
  },
] as const satisfies readonly Measure[];

export type MeasureName = (typeof measures)[number]['name'];
/** One row's (or one group's) sums, by measure. */
export type Sums = Record<MeasureName, number>;

export const measureNames: readonly MeasureName[] = measures.map((measure) => measure.name);
export const callMeasures = measures.filter(
  (measure): measure is (typeof measures)[number] & CallMeasure => measure.source === 'request',
);
export const usageMeasures = measures.filter(
  (measure): measure is (typeof measures)[number] & UsageMeasure => measure.source === 'usage',
);
/** The measures the per-key split (top keys) needs. */
export const perKeyMeasureNames: readonly MeasureName[] = measures
  .filter((measure) => measure.perKey)
  .map((measure) => measure.name);

/** `sum(a) AS a, sum(b) AS b, …`: the same in SQLite and ClickHouse. */
export function sumsSql(names: readonly MeasureName[] = measureNames): string {
  return names.map((name) => `sum(${name}) AS ${name}`).join(', ');
}
