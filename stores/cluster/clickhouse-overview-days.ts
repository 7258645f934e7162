/**
 * @module stores/cluster/clickhouse-overview-days
 * Splits an overview's range of hours into the whole UTC days inside it, which the daily all-users
 * rollups answer, and the hours at either end, which the hourly ones answer. 30 days of top keys read
 * about 12,000 daily rows (200 users, 2 keys each) instead of 288,000 hourly ones, and the latency
 * histogram 150 instead of 3,600 rows of arrays.
 *
 * The hours at the two ends are two selects, not one condition with OR: ClickHouse 18.16 reads the
 * same rows either way, but merges them for FINAL in one pass over both ranges, which is slower.
 * Figures: docs/performance.md, "The busiest user's overview".
 */
import { perKeyMeasureNames } from '../../projector/read-models/usage/measures.ts';
import { integerLiteral } from './clickhouse-sql.ts';

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

/**
 * Hours `hour >= from AND hour < end` (epoch seconds, `from` on an hour): the days inside, and the
 * hours outside them as one condition per range (none when the days cover the whole range).
 */
export function splitByDays(from: number, end: number): { days: string | null; hours: string[] } {
  const lastHourEnd = Math.ceil(end / HOUR_SECONDS) * HOUR_SECONDS;
  const firstDay = Math.ceil(from / DAY_SECONDS) * DAY_SECONDS;
  const daysEnd = Math.floor(lastHourEnd / DAY_SECONDS) * DAY_SECONDS;
  const hours = (start: number, stop: number) => `hour >= ${integerLiteral(start)} AND hour < ${integerLiteral(stop)}`;
  if (firstDay >= daysEnd) return { days: null, hours: [hours(from, end)] };
  const ranges: string[] = [];
  if (from < firstDay) ranges.push(hours(from, firstDay));
  if (daysEnd < end) ranges.push(hours(daysEnd, end));
  return { days: `day >= ${integerLiteral(firstDay)} AND day < ${integerLiteral(daysEnd)}`, hours: ranges };
}

/** `SELECT columns FROM table FINAL WHERE condition` for each condition, as one UNION ALL. */
function selects(columns: string, table: string, conditions: readonly string[]): string[] {
  return conditions.map((condition) => `SELECT ${columns} FROM ${table} FINAL WHERE ${condition}`);
}

/** A table of the top keys' sums over the range, `… WHERE 1` so that conditions can follow. */
export function allUsersTokens(db: string, from: number, end: number): string {
  const { days, hours } = splitByDays(from, end);
  const columns = `token_id, ${perKeyMeasureNames.join(', ')}`;
  const parts = [
    ...selects(columns, `${db}.usage_daily_tokens`, days === null ? [] : [days]),
    ...selects(columns, `${db}.usage_hourly_tokens`, hours),
  ];
  return `(${parts.join(' UNION ALL ')}) WHERE 1`;
}

/** The latency histograms of the range (of one model or all), for `sumMap`. */
export function allUsersHistograms(db: string, from: number, end: number, model: string | null): string {
  const { days, hours } = splitByDays(from, end);
  const ofModel = model === null ? '' : ` AND model = ${model}`;
  const columns = 'latency_buckets, latency_counts';
  const parts = [
    ...selects(columns, `${db}.usage_daily_models`, days === null ? [] : [`${days}${ofModel}`]),
    ...selects(
      columns,
      `${db}.usage_hourly_models`,
      hours.map((range) => `${range}${ofModel}`),
    ),
  ];
  return `(${parts.join(' UNION ALL ')})`;
}
