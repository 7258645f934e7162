/**
 * @module stores/cluster/clickhouse-usage-log
 * The usage log read from ClickHouse: a page of requests, newest first, with their token usage, and a
 * keyset cursor. Three steps, so that no step reads a wide row of the whole range:
 * 1. the page's keys (time, request id, user) from `requests` without FINAL, a few spare rows
 *    fetched in case some are a redelivered request's not yet merged duplicate (dropped here);
 *    wide columns are read only from the page's oldest time on;
 * 2. and 3. at once, the page's full rows from `requests` and `usage`, by request id within the
 *    page's time range; a duplicate is the same row twice, so no FINAL is needed.
 * A single query with FINAL over the whole range reads every wide row of it, which at millions of
 * requests takes seconds. The first page's count of every match comes from the rollups
 * (clickhouse-usage-log-total.ts), and the keys are looked for in recent spans first (below); the
 * figures are in docs/performance.md, "The usage log's first page".
 */
import type { UsageLogEntry, UsageLogsPage, UsageLogsQuery } from '../../contracts/console-api.ts';
import { usdOfNano } from '../../projector/read-models/usage/rollup.ts';
import { attemptsOf } from '../usage-log-attempts.ts';
import { decodeCursor, encodeCursor, type UsageLogCursor } from '../usage-log-cursor.ts';
import { attributionColumns, attributionOfRow } from './clickhouse-attribution.ts';
import { integerLiteral, stringLiteral } from './clickhouse-sql.ts';
import { rawFilters, usageLogTotalQuery } from './clickhouse-usage-log-total.ts';

type Rows = <Row>(query: string) => Promise<Row[]>;

interface PageKey {
  request_id: string;
  started_at_ms: string;
  user_id: string;
}

/** The filters' conditions and the cursor's, over the raw `requests` table. */
function conditionsOf(query: UsageLogsQuery & { userId: string | null }, cursor: UsageLogCursor | null): string {
  const conditions: string[] = ['1', ...rawFilters(query)];
  if (query.from) conditions.push(`started_at_ms >= ${integerLiteral(Date.parse(query.from))}`);
  if (query.to) conditions.push(`started_at_ms < ${integerLiteral(Date.parse(query.to))}`);
  if (cursor) {
    conditions.push(
      `(started_at_ms < ${integerLiteral(cursor.time)} OR (started_at_ms = ${integerLiteral(cursor.time)} AND request_id < ${stringLiteral(cursor.id)}))`,
    );
  }
  return conditions.join(' AND ');
}

/**
 * How far back from the page's newest possible time the keys are looked for first: most pages are of
 * the last hour or day, and `requests` is ordered by user before time, so a search without a lower
 * time bound reads the time of every row in the range (180–340 ms at 10 million requests, against
 * 70–100 within the last hour). `null`: no bound, the last try.
 */
const searchSpans = [3_600_000, 86_400_000, null] as const;

/**
 * The keys of the first `wanted` distinct requests, newest first; `newestMs` is the newest time the
 * range allows (now, the cursor's or `to`), from which the search spans reach back.
 */
async function pageKeys(rows: Rows, db: string, where: string, wanted: number, newestMs: number): Promise<PageKey[]> {
  let fetch = wanted * 2;
  for (let span = 0; ; ) {
    const spanMs = searchSpans[span] ?? null;
    // Every row older than the bound is older than every row inside it: when the span holds `fetch`
    // rows, they are the newest `fetch` of the whole range.
    const bounded =
      spanMs === null
        ? where
        : `${where} AND started_at >= toDateTime(${integerLiteral(Math.max(0, Math.floor((newestMs - spanMs) / 1000)))})`;
    // The inner query finds the page's oldest time reading one number per row; the outer one then
    // reads the ids of only the rows from that time on.
    const found = await rows<PageKey>(
      `SELECT request_id, started_at_ms, user_id FROM ${db}.requests
       PREWHERE started_at_ms >= (SELECT min(time) FROM (SELECT started_at_ms AS time FROM ${db}.requests
         WHERE ${bounded} ORDER BY time DESC LIMIT ${integerLiteral(fetch)}))
       WHERE ${bounded} ORDER BY started_at_ms DESC, request_id DESC LIMIT ${integerLiteral(fetch)}`,
    );
    const seen = new Set<string>();
    const keys = found.filter((key) => !seen.has(key.request_id) && seen.add(key.request_id));
    if (keys.length >= wanted) return keys.slice(0, wanted);
    // A full fetch short of the page: unmerged duplicates took places, so fetch more of the span;
    // else the span is exhausted, so widen it, unless it is already the whole range.
    if (found.length === fetch) fetch *= 4;
    else if (spanMs === null) return keys;
    else span++;
  }
}

export async function readUsageLog(
  rows: Rows,
  db: string,
  query: UsageLogsQuery & { userId: string | null },
): Promise<UsageLogsPage> {
  const limit = query.limit ?? 50;
  const now = Date.now();
  // Counted once, for the first page (clickhouse-usage-log-total.ts).
  const counting = query.cursor
    ? undefined
    : rows<{ total: string }>(usageLogTotalQuery(db, query, now)).then((found) => Number(found[0]?.total ?? 0));
  const cursor = decodeCursor(query.cursor);
  const newestMs = Math.min(now, cursor?.time ?? Infinity, query.to ? Date.parse(query.to) : Infinity);
  const keys = await pageKeys(rows, db, conditionsOf(query, cursor), limit + 1, newestMs);
  const page = keys.slice(0, limit);
  const total = await counting;
  if (page.length === 0) return { items: [], next_cursor: null, ...(total !== undefined && { total }) };
  // PREWHERE on the time (one small column) leaves only the granules of the page's seconds to read;
  // through the key alone, (user_id, started_at) for a page spread over many users, ClickHouse 18.16
  // read most of the table.
  const seconds = page.map((key) => Math.floor(Number(key.started_at_ms) / 1000));
  const located = `PREWHERE started_at >= ${integerLiteral(Math.min(...seconds))} AND started_at <= ${integerLiteral(Math.max(...seconds))}
    WHERE user_id IN (${[...new Set(page.map((key) => key.user_id))].map(stringLiteral).join(', ')})
    AND request_id IN (${page.map((key) => stringLiteral(key.request_id)).join(', ')})`;
  const [requests, usage] = await Promise.all([
    rows<Record<string, string | number | string[]>>(
      `SELECT request_id, client_request_id, started_at_ms, user_id, token_id, channel_id, endpoint, model_requested,
         model_served, stream, status, error_type, error_message, latency_ms, first_token_ms, has_first_token, attempts,
         ${attributionColumns.join(', ')}
       FROM ${db}.requests ${located}`,
    ),
    rows<Record<string, string | number>>(
      `SELECT request_id, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, estimated,
         cost_nano_usd, priced FROM ${db}.usage ${located}`,
    ),
  ]);
  const requestById = new Map(requests.map((row) => [String(row['request_id']), row]));
  const usageById = new Map(usage.map((row) => [String(row['request_id']), row]));
  const last = page.at(-1)!;
  return {
    items: page.map((key) => toLogEntry({ ...requestById.get(key.request_id), ...usageById.get(key.request_id) })),
    next_cursor: keys.length > limit ? encodeCursor(Number(last.started_at_ms), last.request_id) : null,
    ...(total !== undefined && { total }),
  };
}

function toLogEntry(row: Record<string, string | number | string[]>): UsageLogEntry {
  return {
    request_id: String(row['request_id']),
    client_request_id: textOrNull(row['client_request_id']),
    started_at: new Date(Number(row['started_at_ms'])).toISOString(),
    user_id: textOrNull(row['user_id']),
    token_id: textOrNull(row['token_id']),
    channel_id: textOrNull(row['channel_id']),
    endpoint: String(row['endpoint']),
    model_requested: row['model_requested'] ? String(row['model_requested']) : null,
    model_served: row['model_served'] ? String(row['model_served']) : null,
    stream: Number(row['stream']) === 1,
    status: Number(row['status']),
    error_type: textOrNull(row['error_type']),
    error_message: textOrNull(row['error_message']),
    prompt_tokens: Number(row['prompt_tokens'] ?? 0),
    completion_tokens: Number(row['completion_tokens'] ?? 0),
    cached_tokens: Number(row['cached_tokens'] ?? 0),
    cache_write_tokens: Number(row['cache_write_tokens'] ?? 0),
    reasoning_tokens: Number(row['reasoning_tokens'] ?? 0),
    usage_estimated: Number(row['estimated'] ?? 0) === 1,
    // No usage row: no tokens used, nothing spent; a usage row without a price: unknown.
    cost_usd:
      row['priced'] === undefined ? 0 : Number(row['priced']) === 1 ? usdOfNano(Number(row['cost_nano_usd'])) : null,
    latency_ms: Number(row['latency_ms']),
    first_token_ms: Number(row['has_first_token']) === 1 ? Number(row['first_token_ms']) : null,
    attempts: attemptsOf(textOrNull(row['attempts'])),
    ...attributionOfRow(row),
  };
}

/** ClickHouse keeps an absent text as ''. */
const textOrNull = (value: string | number | string[] | undefined) => (value ? String(value) : null);
