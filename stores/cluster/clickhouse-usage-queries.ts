/**
 * @module stores/cluster/clickhouse-usage-queries
 * The data overview (from the hourly rollups, FINAL so replaced rows never count twice) and the usage
 * log (raw requests joined with their usage) read from ClickHouse, in the same shapes as the embedded store.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type {
  UsageLogEntry,
  UsageLogsPage,
  UsageLogsQuery,
  UsageOverview,
  UsageOverviewQuery,
  UsageTotals,
} from '../../contracts/console-api.ts';
import { defaultGranularity, HOUR_MS } from '../../projector/read-models/usage/rollup.ts';
import type { UsageReadModel } from '../ports.ts';
import { decodeCursor, encodeCursor } from '../usage-log-cursor.ts';
import { identifier, integerLiteral, stringLiteral } from './clickhouse-sql.ts';

interface TotalsRow {
  calls: string;
  errors: string;
  prompt_tokens: string;
  completion_tokens: string;
}

function totalsOf(row: TotalsRow | undefined): UsageTotals {
  const prompt = Number(row?.prompt_tokens ?? 0);
  const completion = Number(row?.completion_tokens ?? 0);
  return {
    calls: Number(row?.calls ?? 0),
    errors: Number(row?.errors ?? 0),
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

const sums =
  'sum(calls) AS calls, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens';

export class ClickHouseUsageQueries implements UsageReadModel {
  readonly #client: ClickHouseClient;
  readonly #database: string;

  constructor(client: ClickHouseClient, database: string) {
    this.#client = client;
    this.#database = identifier(database);
  }

  async #rows<Row>(query: string): Promise<Row[]> {
    const result = await this.#client.query({ query, format: 'JSONEachRow' });
    return (await result.json()) as Row[];
  }

  async overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview> {
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    const granularity = query.granularity ?? defaultGranularity(from, to);
    const alignedFrom = from - (from % HOUR_MS);
    const conditions = [
      `hour >= ${integerLiteral(alignedFrom / 1000)}`,
      `hour < ${integerLiteral(Math.ceil(to / 1000))}`,
    ];
    if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
    if (query.model) conditions.push(`model = ${stringLiteral(query.model)}`);
    if (query.token_id) conditions.push(`token_id = ${stringLiteral(query.token_id)}`);
    const source = `${this.#database}.usage_hourly FINAL WHERE ${conditions.join(' AND ')}`;
    const bucket = granularity === 'day' ? 'toUInt32(toStartOfDay(hour))' : 'toUInt32(hour)';
    const rawConditions = [
      `started_at_ms >= ${integerLiteral(alignedFrom)}`,
      `started_at_ms < ${integerLiteral(to)}`,
      ...(query.userId !== null ? [`user_id = ${stringLiteral(query.userId)}`] : []),
      ...(query.model ? [`model_requested = ${stringLiteral(query.model)}`] : []),
      ...(query.token_id ? [`token_id = ${stringLiteral(query.token_id)}`] : []),
    ];
    const [totals, series, byModel, byToken, latency] = await Promise.all([
      this.#rows<TotalsRow>(`SELECT ${sums} FROM ${source}`),
      this.#rows<TotalsRow & { bucket: string; model: string }>(
        `SELECT ${bucket} AS bucket, model, ${sums} FROM ${source} GROUP BY bucket, model ORDER BY bucket, model`,
      ),
      this.#rows<TotalsRow & { model: string }>(
        `SELECT model, ${sums} FROM ${source} GROUP BY model ORDER BY prompt_tokens + completion_tokens DESC`,
      ),
      this.#rows<TotalsRow & { token_id: string }>(
        `SELECT token_id, ${sums} FROM ${source} AND token_id != '' GROUP BY token_id
         ORDER BY prompt_tokens + completion_tokens DESC, calls DESC LIMIT 10`,
      ),
      // The average from the rollups; the 95th percentile from the raw rows of the range.
      this.#rows<{ latency_sum: string; calls: string; p95: number | string; count: string }>(
        `SELECT (SELECT sum(latency_ms_sum) FROM ${source}) AS latency_sum, (SELECT sum(calls) FROM ${source}) AS calls,
           if(count() = 0, 0, quantileExact(0.95)(latency_ms)) AS p95, count() AS count
         FROM ${this.#database}.requests FINAL WHERE ${rawConditions.join(' AND ')}`,
      ),
    ]);
    const latencyRow = latency[0];
    const rollupCalls = Number(latencyRow?.calls ?? 0);
    return {
      from: new Date(alignedFrom).toISOString(),
      to: new Date(to).toISOString(),
      granularity,
      totals: totalsOf(totals[0]),
      series: series.map((row) => ({
        bucket: new Date(Number(row.bucket) * 1000).toISOString(),
        model: row.model,
        ...totalsOf(row),
      })),
      by_model: byModel.map((row) => ({ model: row.model, ...totalsOf(row) })),
      latency: {
        average_ms: rollupCalls > 0 ? Math.round(Number(latencyRow!.latency_sum) / rollupCalls) : null,
        p95_ms: Number(latencyRow?.count ?? 0) > 0 ? Math.round(Number(latencyRow!.p95)) : null,
      },
      by_token: byToken.map((row) => ({ token_id: row.token_id, ...totalsOf(row) })),
    };
  }

  async logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage> {
    const limit = query.limit ?? 50;
    const conditions: string[] = ['1'];
    if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
    if (query.from) conditions.push(`started_at_ms >= ${integerLiteral(Date.parse(query.from))}`);
    if (query.to) conditions.push(`started_at_ms < ${integerLiteral(Date.parse(query.to))}`);
    if (query.model) conditions.push(`model_requested = ${stringLiteral(query.model)}`);
    if (query.token_id) conditions.push(`token_id = ${stringLiteral(query.token_id)}`);
    // The same rule as the rollups' error count: a 4xx/5xx answer or an in-stream error.
    if (query.status === 'ok') conditions.push(`status < 400 AND error_type = ''`);
    if (query.status === 'error') conditions.push(`(status >= 400 OR error_type != '')`);
    const cursor = decodeCursor(query.cursor);
    if (cursor) {
      conditions.push(
        `(started_at_ms < ${integerLiteral(cursor.time)} OR (started_at_ms = ${integerLiteral(cursor.time)} AND request_id < ${stringLiteral(cursor.id)}))`,
      );
    }
    const db = this.#database;
    const rows = await this.#rows<Record<string, string | number>>(
      `SELECT * FROM (
         SELECT request_id, started_at_ms, token_id, endpoint, model_requested, model_served, stream, status, error_type,
           latency_ms, first_token_ms, has_first_token
         FROM ${db}.requests FINAL WHERE ${conditions.join(' AND ')}
         ORDER BY started_at_ms DESC, request_id DESC LIMIT ${integerLiteral(limit + 1)}
       ) ANY LEFT JOIN (
         SELECT request_id, prompt_tokens, completion_tokens, estimated FROM ${db}.usage FINAL
         WHERE request_id IN (SELECT request_id FROM ${db}.requests FINAL WHERE ${conditions.join(' AND ')}
           ORDER BY started_at_ms DESC, request_id DESC LIMIT ${integerLiteral(limit + 1)})
       ) USING request_id
       ORDER BY started_at_ms DESC, request_id DESC`,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toLogEntry),
      next_cursor:
        rows.length > limit && last ? encodeCursor(Number(last['started_at_ms']), String(last['request_id'])) : null,
    };
  }
}

function toLogEntry(row: Record<string, string | number>): UsageLogEntry {
  return {
    request_id: String(row['request_id']),
    started_at: new Date(Number(row['started_at_ms'])).toISOString(),
    token_id: row['token_id'] ? String(row['token_id']) : null,
    endpoint: String(row['endpoint']),
    model_requested: row['model_requested'] ? String(row['model_requested']) : null,
    model_served: row['model_served'] ? String(row['model_served']) : null,
    stream: Number(row['stream']) === 1,
    status: Number(row['status']),
    error_type: row['error_type'] ? String(row['error_type']) : null,
    prompt_tokens: Number(row['prompt_tokens'] ?? 0),
    completion_tokens: Number(row['completion_tokens'] ?? 0),
    usage_estimated: Number(row['estimated'] ?? 0) === 1,
    latency_ms: Number(row['latency_ms']),
    first_token_ms: Number(row['has_first_token']) === 1 ? Number(row['first_token_ms']) : null,
  };
}
