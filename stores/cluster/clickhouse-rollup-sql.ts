/**
 * @module stores/cluster/clickhouse-rollup-sql
 * The statements that recompute the rollups inside ClickHouse (`INSERT … SELECT`), shared by the
 * projector's writer (for the (user, minute) and (user, hour) pairs a batch touched) and the one-off
 * back-fill (for ranges of users). Each recomputes whole rows from their sources and writes them with
 * a version, so running one twice, or for more pairs than needed, changes nothing. The rows never
 * travel through Node.
 *
 * Order matters: `usage_slots` (per minute) comes from the raw tables; `usage_hourly` and
 * `usage_hourly_user_models` from the raw tables or from `usage_slots` (HourSource, below);
 * `usage_hourly_tokens` from `usage_hourly`, `usage_hourly_models` from `usage_hourly_user_models`,
 * and the daily ones from those last two.
 *
 * Why minutes between the raw rows and the recent hours: recomputing a touched hour from the raw rows
 * read every request of that hour again at every write, so a live write's cost grew with the traffic
 * of the hour so far, until a write took longer than the second between writes (docs/performance.md,
 * "Live writes from minute slots"). A touched minute is at most a minute of traffic, and an
 * hour is at most 60 slot rows per group. Old hours (a backlog, a late event) are summed from the raw
 * rows directly: their writes bring most of the hour at once, and a slot row per request would only
 * add a step (clickhouse-usage-writer.ts decides which hours are recent).
 */
import {
  type Measure,
  measureNames,
  measures,
  perKeyMeasureNames,
} from '../../projector/read-models/usage/measures.ts';
import { latencyBucketSql } from './clickhouse-latency-histogram.ts';
import { integerLiteral, stringLiteral } from './clickhouse-sql.ts';

/** user id → the starts (epoch seconds) of the minutes, or of the hours, of that user a batch touched */
export type TouchedHours = Map<string, Set<number>>;

const MINUTE_SECONDS = 60;
const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

/** Settings of every statement built here: room for the pair sets, which are part of the SQL text. */
export const statementSettings = { max_query_size: String(16 * 1024 * 1024) } as const;

/** A time column and the unit its touched starts are in: raw rows by minute or hour, slots and rollups by hour. */
export type PairsOf = 'raw minutes' | 'raw hours' | 'slot hours' | 'hours';

const pairColumns: Record<PairsOf, { time: string; start: string; seconds: number }> = {
  'raw minutes': { time: 'started_at', start: 'toUInt32(toStartOfMinute(started_at))', seconds: MINUTE_SECONDS },
  'raw hours': { time: 'started_at', start: 'toUInt32(toStartOfHour(started_at))', seconds: HOUR_SECONDS },
  'slot hours': { time: 'slot', start: 'toUInt32(toStartOfHour(slot))', seconds: HOUR_SECONDS },
  hours: { time: 'hour', start: 'toUInt32(hour)', seconds: HOUR_SECONDS },
};

/**
 * Selects the rows of the touched (user, minute or hour) pairs from a table keyed by (user_id, time,
 * …): the users and the overall time range let the primary key skip what no pair can match, and a set
 * of `user:start` keys keeps the selection exact. The set is one array literal, which ClickHouse 18.16
 * parses as a single value: a literal list of 3,000 tuples (or one OR term per user) took it 50 ms to
 * 1 s to analyse, longer than reading the rows. A user id may contain ':', the start never does, so
 * the key is unambiguous.
 */
export function pairsCondition(touched: TouchedHours, of: PairsOf): string {
  if (touched.size === 0) return '0';
  const { time, start, seconds } = pairColumns[of];
  const starts = [...touched.values()].flatMap((set) => [...set]);
  const first = integerLiteral(Math.min(...starts));
  const end = integerLiteral(Math.max(...starts) + seconds);
  const users = [...touched.keys()].map(stringLiteral).join(', ');
  const keys = [...touched].flatMap(([user, set]) =>
    [...set].map((slot) => stringLiteral(`${user}:${integerLiteral(slot)}`)),
  );
  return `user_id IN (${users}) AND ${time} >= ${first} AND ${time} < ${end}
    AND concat(user_id, ':', toString(${start})) IN (SELECT arrayJoin([${keys.join(', ')}]))`;
}

/** The touched hours of touched minutes, per user. */
export function hoursOfMinutes(minutes: TouchedHours): TouchedHours {
  const hours: TouchedHours = new Map();
  for (const [user, set] of minutes)
    hours.set(user, new Set([...set].map((minute) => minute - (minute % HOUR_SECONDS))));
  return hours;
}

/** Selects whole hours from a table ordered by hour first. */
export function hoursCondition(hours: readonly number[]): string {
  if (hours.length === 0) return '0';
  const sorted = [...hours].sort((left, right) => left - right);
  return `hour >= ${integerLiteral(sorted[0]!)} AND hour <= ${integerLiteral(sorted.at(-1)!)} AND toUInt32(hour) IN (${sorted.map(integerLiteral).join(', ')})`;
}

/**
 * Splits the touched pairs so that a statement stays within a few megabytes: the writer raises
 * ClickHouse's 256 KiB query size limit (`statementSettings`), which a few thousand pairs of UUID
 * user ids would pass.
 */
export function chunkTouched(touched: TouchedHours, maxPairs = 40_000): TouchedHours[] {
  const chunks: TouchedHours[] = [];
  let current: TouchedHours = new Map();
  let pairs = 0;
  for (const [user, hours] of touched) {
    for (const hour of hours) {
      if (pairs === maxPairs) {
        chunks.push(current);
        current = new Map();
        pairs = 0;
      }
      const set = current.get(user) ?? new Set<number>();
      set.add(hour);
      current.set(user, set);
      pairs++;
    }
  }
  if (pairs > 0) chunks.push(current);
  return chunks;
}

const zeroOf = (measure: Measure) => (measure.type === 'real' ? 'toFloat64(0)' : 'toUInt64(0)');
const amountOf = (measure: Measure, source: Measure['source']) =>
  `${measure.source === source ? measure.clickhouse : zeroOf(measure)} AS ${measure.name}`;

/**
 * Every raw row of the condition as one stream, with its minute or hour as `time`: a request row counts
 * its call measures (and its latency's histogram bucket), a usage row its usage measures (measures.ts).
 * FINAL drops redelivered duplicates.
 */
function rawRows(db: string, condition: string, unit: 'toStartOfMinute' | 'toStartOfHour'): string {
  return `SELECT ${unit}(started_at) AS time, user_id, token_id, model_requested AS model, channel_id,
      ${measures.map((measure) => amountOf(measure, 'request')).join(', ')},
      [${latencyBucketSql}] AS buckets, [toUInt64(1)] AS counts
    FROM ${db}.requests FINAL WHERE ${condition}
    UNION ALL
    SELECT ${unit}(started_at), user_id, token_id, model, channel_id,
      ${measures.map((measure) => amountOf(measure, 'usage')).join(', ')},
      emptyArrayUInt16(), emptyArrayUInt64()
    FROM ${db}.usage FINAL WHERE ${condition}`;
}

/**
 * Where the hourly rollups of some (user, hour) pairs are summed from: the raw tables (`condition` on
 * user_id and started_at) or the minute slots (on user_id and slot).
 */
export interface HourSource {
  from: 'raw' | 'slots';
  condition: string;
}

/** The rows of a source in the raw stream's shape, with their hour as `time`. */
function hourRows(db: string, source: HourSource): string {
  if (source.from === 'raw') return rawRows(db, source.condition, 'toStartOfHour');
  return `SELECT toStartOfHour(slot) AS time, user_id, token_id, model, channel_id, ${measureNames.join(', ')},
      latency_buckets AS buckets, latency_counts AS counts
    FROM ${db}.usage_slots FINAL WHERE ${source.condition}`;
}

/** `sum(a), sum(b), …` over the raw stream or a rollup: both name their columns after the measures. */
const sumsOf = (names: readonly string[]) => names.map((name) => `sum(${name})`).join(', ');
const aggregateNames = measureNames.join(', ');
const histogram = (buckets: string, counts: string) =>
  `tupleElement(sumMap(${buckets}, ${counts}), 1), tupleElement(sumMap(${buckets}, ${counts}), 2)`;

/** `rawCondition` is on the raw tables (user_id, started_at): a pair condition or a user range. */
export function slotRollupInsert(db: string, rawCondition: string, version: number): string {
  return `INSERT INTO ${db}.usage_slots
      (slot, user_id, token_id, model, channel_id, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT time, user_id, token_id, model, channel_id, ${sumsOf(measureNames)}, ${histogram('buckets', 'counts')},
      toUInt64(${integerLiteral(version)})
    FROM (${rawRows(db, rawCondition, 'toStartOfMinute')}) GROUP BY time, user_id, token_id, model, channel_id`;
}

export function keyRollupInsert(db: string, source: HourSource, version: number): string {
  return `INSERT INTO ${db}.usage_hourly
      (hour, user_id, token_id, model, channel_id, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT time, user_id, token_id, model, channel_id, ${sumsOf(measureNames)}, ${histogram('buckets', 'counts')},
      toUInt64(${integerLiteral(version)})
    FROM (${hourRows(db, source)}) GROUP BY time, user_id, token_id, model, channel_id`;
}

export function userModelRollupInsert(db: string, source: HourSource, version: number): string {
  return `INSERT INTO ${db}.usage_hourly_user_models
      (hour, user_id, model, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT time, user_id, model, ${sumsOf(measureNames)}, ${histogram('buckets', 'counts')},
      toUInt64(${integerLiteral(version)})
    FROM (${hourRows(db, source)}) GROUP BY time, user_id, model`;
}

/**
 * The per-user model rollup of some (user, hour) pairs summed from their `usage_hourly` rows, which a
 * write has just recomputed whole: a few rows per pair instead of every minute slot of the hour. The
 * histograms' `sumMap` costs ClickHouse 18.16 about 4 µs a row, so summing them from the slots a second
 * time was a third of a live write's ClickHouse CPU. `condition` is on `usage_hourly` (user_id, hour).
 */
export function userModelRollupFromKeys(db: string, condition: string, version: number): string {
  return `INSERT INTO ${db}.usage_hourly_user_models
      (hour, user_id, model, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT hour, user_id, model, ${sumsOf(measureNames)}, ${histogram('latency_buckets', 'latency_counts')},
      toUInt64(${integerLiteral(version)})
    FROM ${db}.usage_hourly FINAL WHERE ${condition} GROUP BY hour, user_id, model`;
}

/** `condition` is on `usage_hourly` (user_id, hour): a pair condition or a user range. */
export function tokenRollupInsert(db: string, condition: string, version: number): string {
  return `INSERT INTO ${db}.usage_hourly_tokens
      (hour, token_id, user_id, ${perKeyMeasureNames.join(', ')}, version)
    SELECT hour, token_id, user_id, ${sumsOf(perKeyMeasureNames)}, toUInt64(${integerLiteral(version)})
    FROM ${db}.usage_hourly FINAL WHERE ${condition} GROUP BY hour, token_id, user_id`;
}

/** `condition` selects whole hours of `usage_hourly_user_models`: every user of an hour is summed. */
export function modelRollupInsert(db: string, condition: string, version: number): string {
  return `INSERT INTO ${db}.usage_hourly_models (hour, model, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT hour, model, ${sumsOf(measureNames)}, ${histogram('latency_buckets', 'latency_counts')},
      toUInt64(${integerLiteral(version)})
    FROM ${db}.usage_hourly_user_models FINAL WHERE ${condition} GROUP BY hour, model`;
}

/** The starts (epoch seconds, UTC) of the days of `hours`. */
export function daysOf(hours: Iterable<number>): number[] {
  return [...new Set([...hours].map((hour) => hour - (hour % DAY_SECONDS)))].sort((left, right) => left - right);
}

/** Whole UTC days, by their starts, of a table ordered by hour first. */
export function hoursOfDaysCondition(days: readonly number[]): string {
  if (days.length === 0) return '0';
  return `hour >= ${integerLiteral(days[0]!)} AND hour < ${integerLiteral(days.at(-1)! + DAY_SECONDS)}
    AND toUInt32(toStartOfDay(hour)) IN (${days.map(integerLiteral).join(', ')})`;
}

/** `condition` selects whole days of `usage_hourly_models` (hoursOfDaysCondition). */
export function dailyModelRollupInsert(db: string, condition: string, version: number): string {
  return `INSERT INTO ${db}.usage_daily_models (day, model, ${aggregateNames}, latency_buckets, latency_counts, version)
    SELECT toStartOfDay(hour) AS day, model, ${sumsOf(measureNames)}, ${histogram('latency_buckets', 'latency_counts')},
      toUInt64(${integerLiteral(version)})
    FROM ${db}.usage_hourly_models FINAL WHERE ${condition} GROUP BY day, model`;
}

/**
 * `condition` selects whole days of `usage_hourly_tokens`: of the touched users (a key's rows are
 * complete per user, as in `usage_hourly_tokens`), or of everyone.
 */
export function dailyTokenRollupInsert(db: string, condition: string, version: number): string {
  return `INSERT INTO ${db}.usage_daily_tokens (day, token_id, user_id, ${perKeyMeasureNames.join(', ')}, version)
    SELECT toStartOfDay(hour) AS day, token_id, user_id, ${sumsOf(perKeyMeasureNames)}, toUInt64(${integerLiteral(version)})
    FROM ${db}.usage_hourly_tokens FINAL WHERE ${condition} GROUP BY day, token_id, user_id`;
}
