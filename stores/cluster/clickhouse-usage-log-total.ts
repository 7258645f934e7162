/**
 * @module stores/cluster/clickhouse-usage-log-total
 * How many requests match a usage-log query, for its first page. Counting the raw rows
 * (`uniqExact(request_id)`, so that an unmerged duplicate counts once) grows with the whole range, and
 * took seconds while the page itself took milliseconds (docs/performance.md, "The usage log's first
 * page"). So the
 * whole hours of the range are summed from the hourly rollups, which hold each request once (`calls`,
 * `errors`), and only the partial hours at its two ends (the current hour, when the range runs to now)
 * are counted from the raw rows. The rollups' model is the model asked for, as the log's model filter;
 * a request-id filter finds one request and is counted from the raw rows alone, as are the filters by
 * endpoint, streaming and error type, which the rollups do not keep.
 *
 * The rollups follow the raw rows by one projector write: a request of the hour that has just ended
 * can be missing from the count for that write's time (about a second), as from the overview.
 */
import type { UsageLogsQuery } from '../../contracts/console-api.ts';
import { attributionConditions, filtersAttribution } from './clickhouse-attribution.ts';
import { integerLiteral, stringLiteral } from './clickhouse-sql.ts';
import { filtersRawOnly, usageLogFilterConditions } from './clickhouse-usage-log-filters.ts';

const HOUR_MS = 3_600_000;

type TotalQuery = UsageLogsQuery & { userId: string | null };

/** The filters other than time and cursor, over the raw `requests` table. */
export function rawFilters(query: TotalQuery): string[] {
  const conditions: string[] = [];
  if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
  // A part of the name, any case: users remember `sonnet`, not the dated id.
  if (query.model) conditions.push(`positionCaseInsensitiveUTF8(model_requested, ${stringLiteral(query.model)}) > 0`);
  if (query.token_id) conditions.push(`token_id = ${stringLiteral(query.token_id)}`);
  if (query.request_id) {
    const id = stringLiteral(query.request_id);
    conditions.push(`(request_id = ${id} OR client_request_id = ${id})`);
  }
  // The same rule as the rollups' error count: a 4xx/5xx answer or an in-stream error.
  if (query.status === 'ok') conditions.push(`status < 400 AND error_type = ''`);
  if (query.status === 'error') conditions.push(`(status >= 400 OR error_type != '')`);
  conditions.push(...attributionConditions(query));
  conditions.push(...usageLogFilterConditions(query));
  return conditions;
}

/** Raw rows with `from <= started_at_ms < to` (either end open when null). */
function rawTimes(from: number | null, to: number | null): string[] {
  // `started_at` (seconds) is in the table's key, `started_at_ms` is not: the first narrows the
  // granules read, the second is exact within the second, and is left out on a whole second.
  const bound = (operator: '>=' | '<', ms: number) => {
    const second = operator === '>=' ? Math.floor(ms / 1000) : Math.ceil(ms / 1000);
    const onSecond = ms % 1000 === 0;
    return [
      `started_at ${operator} toDateTime(${integerLiteral(second)})`,
      ...(onSecond ? [] : [`started_at_ms ${operator} ${integerLiteral(ms)}`]),
    ];
  };
  return [...(from === null ? [] : bound('>=', from)), ...(to === null ? [] : bound('<', to))];
}

function rawCount(db: string, query: TotalQuery, from: number | null, to: number | null): string {
  const where = ['1', ...rawFilters(query), ...rawTimes(from, to)].join(' AND ');
  return `SELECT toInt64(uniqExact(request_id)) AS total FROM ${db}.requests WHERE ${where}`;
}

/** The rollup rows' sum for the hours `from <= hour < to` (either end open when null). */
function rollupCount(db: string, query: TotalQuery, from: number | null, to: number | null): string {
  const conditions = ['1'];
  if (from !== null) conditions.push(`hour >= toDateTime(${integerLiteral(from / 1000)})`);
  if (to !== null) conditions.push(`hour < toDateTime(${integerLiteral(to / 1000)})`);
  if (query.model) conditions.push(`positionCaseInsensitiveUTF8(model, ${stringLiteral(query.model)}) > 0`);
  let table = `${db}.usage_hourly_models`;
  if (query.userId !== null || query.token_id) {
    // Per key: `usage_hourly`, ordered by user first. A key belongs to one user, so a key asked for
    // without its user is looked up in the all-users per-key rollup, to read only that user's rows.
    table = `${db}.usage_hourly`;
    if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
    if (query.token_id) {
      const token = stringLiteral(query.token_id);
      if (query.userId === null)
        conditions.push(`user_id IN (SELECT user_id FROM ${db}.usage_hourly_tokens WHERE token_id = ${token} LIMIT 1)`);
      conditions.push(`token_id = ${token}`);
    }
  }
  const sum =
    query.status === 'ok' ? 'sum(calls) - sum(errors)' : query.status === 'error' ? 'sum(errors)' : 'sum(calls)';
  return `SELECT toInt64(${sum}) AS total FROM ${table} FINAL WHERE ${conditions.join(' AND ')}`;
}

/** Where ClickHouse's `DateTime` ends (2106): no stored request is outside [0, this). */
const DATE_TIME_END_MS = 2 ** 32 * 1000;

/**
 * A range's ends as bounds on the stored times: an end beyond what a `DateTime` holds bounds
 * nothing (`null`), and a range that can hold no stored request is `empty`. `toDateTime` would
 * wrap such ends around (a 1969 `from` read as 2106).
 */
function storedRange(query: TotalQuery): { from: number | null; to: number | null } | 'empty' {
  const from = query.from ? Date.parse(query.from) : null;
  const to = query.to ? Date.parse(query.to) : null;
  if ((from !== null && from >= DATE_TIME_END_MS) || (to !== null && to <= 0)) return 'empty';
  return { from: from !== null && from > 0 ? from : null, to: to !== null && to < DATE_TIME_END_MS ? to : null };
}

/** One statement answering `total` (a number, as text): the whole hours from rollups, the rest raw. */
export function usageLogTotalQuery(db: string, query: TotalQuery, nowMs: number): string {
  const range = storedRange(query);
  if (range === 'empty') return 'SELECT toInt64(0) AS total';
  const { from, to } = range;
  // The rollups keep no request ids, no attribution and not these dimensions: those filters are counted raw.
  if (query.request_id || filtersAttribution(query) || filtersRawOnly(query)) return rawCount(db, query, from, to);
  // The whole hours: from the first hour start at or after `from` to the last at or before `to`,
  // and never the current hour or later (requests keep arriving there, and the rollups follow the
  // raw rows by a projector write): those are counted raw.
  const wholeFrom = from === null ? null : Math.ceil(from / HOUR_MS) * HOUR_MS;
  const wholeTo = Math.floor(Math.min(to ?? nowMs, nowMs) / HOUR_MS) * HOUR_MS;
  if (wholeFrom !== null && wholeFrom >= wholeTo) return rawCount(db, query, from, to);
  const parts = [rollupCount(db, query, wholeFrom, wholeTo)];
  if (from !== null && from < wholeFrom!) parts.push(rawCount(db, query, from, wholeFrom));
  if (to === null || wholeTo < to) parts.push(rawCount(db, query, wholeTo, to));
  return `SELECT sum(total) AS total FROM (${parts.join(' UNION ALL ')})`;
}
