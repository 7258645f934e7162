/**
 * @module stores/embedded/usage-queries
 * The data overview and the usage log, read from the SQLite projections. The overview reads the
 * hourly rollups (ranges are widened to whole hours); the log pages through raw request rows with a
 * keyset cursor, so a page costs the same however deep it is.
 */
import type {
  UsageLatency,
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
import type { SqliteDatabase } from './database.ts';

interface TotalsRow {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
}

function totalsOf(row: TotalsRow): UsageTotals {
  return {
    calls: row.calls,
    errors: row.errors,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
  };
}

const sums = `coalesce(sum(calls), 0) AS calls, coalesce(sum(errors), 0) AS errors,
  coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens`;

export class SqliteUsageQueries implements UsageReadModel {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    this.#database = database;
  }

  async overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview> {
    const from = Date.parse(query.from);
    const to = Date.parse(query.to);
    const granularity = query.granularity ?? defaultGranularity(from, to);
    const conditions = ['hour >= @from', 'hour < @to'];
    if (query.userId !== null) conditions.push('user_id = @userId');
    if (query.model) conditions.push('model = @model');
    if (query.token_id) conditions.push('token_id = @tokenId');
    const where = conditions.join(' AND ');
    const parameters = {
      from: from - (from % HOUR_MS),
      to,
      userId: query.userId,
      model: query.model ?? null,
      tokenId: query.token_id ?? null,
    };
    const bucketSize = granularity === 'day' ? 24 * HOUR_MS : HOUR_MS;
    const totals = this.#database
      .prepare(`SELECT ${sums} FROM usage_hourly WHERE ${where}`)
      .get(parameters) as TotalsRow;
    const series = this.#database
      .prepare(
        `SELECT hour - (hour % ${bucketSize}) AS bucket, model, ${sums} FROM usage_hourly WHERE ${where}
         GROUP BY bucket, model ORDER BY bucket, model`,
      )
      .all(parameters) as Array<TotalsRow & { bucket: number; model: string }>;
    const byModel = this.#database
      .prepare(
        `SELECT model, ${sums} FROM usage_hourly WHERE ${where} GROUP BY model ORDER BY sum(prompt_tokens) + sum(completion_tokens) DESC`,
      )
      .all(parameters) as Array<TotalsRow & { model: string }>;
    const byToken = this.#database
      .prepare(
        `SELECT token_id, ${sums} FROM usage_hourly WHERE ${where} AND token_id != ''
         GROUP BY token_id ORDER BY prompt_tokens + completion_tokens DESC, calls DESC LIMIT 10`,
      )
      .all(parameters) as Array<TotalsRow & { token_id: string }>;
    return {
      from: new Date(parameters.from).toISOString(),
      to: new Date(to).toISOString(),
      granularity,
      totals: totalsOf(totals),
      series: series.map((row) => ({ bucket: new Date(row.bucket).toISOString(), model: row.model, ...totalsOf(row) })),
      by_model: byModel.map((row) => ({ model: row.model, ...totalsOf(row) })),
      latency: this.#latency(where, parameters),
      by_token: byToken.map((row) => ({ token_id: row.token_id, ...totalsOf(row) })),
    };
  }

  /** The average from the rollups; the 95th percentile (nearest rank) from the raw rows of the range. */
  #latency(rollupWhere: string, parameters: Record<string, unknown>): UsageLatency {
    const average = this.#database
      .prepare(`SELECT sum(latency_ms_sum) / sum(calls) AS average FROM usage_hourly WHERE ${rollupWhere}`)
      .pluck()
      .get(parameters) as number | null;
    const conditions = ['started_at >= @from', 'started_at < @to', 'latency_ms IS NOT NULL', 'request_applied = 1'];
    if (parameters['userId'] !== null) conditions.push('user_id = @userId');
    if (parameters['model'] !== null) conditions.push('model_requested = @model');
    if (parameters['tokenId'] !== null) conditions.push('token_id = @tokenId');
    const where = conditions.join(' AND ');
    const count = this.#database
      .prepare(`SELECT count(*) FROM requests WHERE ${where}`)
      .pluck()
      .get(parameters) as number;
    const p95 =
      count === 0
        ? null
        : (this.#database
            .prepare(`SELECT latency_ms FROM requests WHERE ${where} ORDER BY latency_ms LIMIT 1 OFFSET @offset`)
            .pluck()
            .get({ ...parameters, offset: Math.ceil(0.95 * count) - 1 }) as number);
    return {
      average_ms: average === null ? null : Math.round(average),
      p95_ms: p95 === null ? null : Math.round(p95),
    };
  }

  async logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage> {
    const limit = query.limit ?? 50;
    const conditions: string[] = [];
    const cursor = decodeCursor(query.cursor);
    if (query.userId !== null) conditions.push('user_id = @userId');
    if (query.from) conditions.push('started_at >= @from');
    if (query.to) conditions.push('started_at < @to');
    if (query.model) conditions.push('model_requested = @model');
    if (query.token_id) conditions.push('token_id = @tokenId');
    // The same rule as the rollups' error count: a 4xx/5xx answer or an in-stream error.
    if (query.status === 'ok') conditions.push('coalesce(status, 200) < 400 AND error_type IS NULL');
    if (query.status === 'error') conditions.push('(coalesce(status, 200) >= 400 OR error_type IS NOT NULL)');
    if (cursor) conditions.push('(started_at < @cursorTime OR (started_at = @cursorTime AND request_id < @cursorId))');
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = this.#database
      .prepare(`SELECT * FROM requests ${where} ORDER BY started_at DESC, request_id DESC LIMIT @limit`)
      .all({
        userId: query.userId,
        from: query.from ? Date.parse(query.from) : null,
        to: query.to ? Date.parse(query.to) : null,
        model: query.model ?? null,
        tokenId: query.token_id ?? null,
        cursorTime: cursor?.time ?? null,
        cursorId: cursor?.id ?? null,
        limit: limit + 1,
      }) as RequestRow[];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(toLogEntry),
      next_cursor: rows.length > limit && last ? encodeCursor(last.started_at, last.request_id) : null,
    };
  }
}

interface RequestRow {
  request_id: string;
  started_at: number;
  token_id: string;
  endpoint: string | null;
  model_requested: string | null;
  model_served: string | null;
  stream: number | null;
  status: number | null;
  error_type: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  usage_source: string | null;
  latency_ms: number | null;
  first_token_ms: number | null;
}

function toLogEntry(row: RequestRow): UsageLogEntry {
  return {
    request_id: row.request_id,
    started_at: new Date(row.started_at).toISOString(),
    token_id: row.token_id || null,
    endpoint: row.endpoint ?? '',
    model_requested: row.model_requested,
    model_served: row.model_served,
    stream: row.stream === 1,
    status: row.status ?? 0,
    error_type: row.error_type,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    usage_estimated: row.usage_source === 'estimated',
    latency_ms: row.latency_ms ?? 0,
    first_token_ms: row.first_token_ms,
  };
}
