/**
 * @module stores/embedded/usage-queries
 * The data overview and the usage log, read from the SQLite projections. The overview reads the
 * rollups (usage-overview.ts; ranges are widened to whole hours); the log pages through raw request
 * rows with a keyset cursor, so a page costs the same however deep it is.
 */
import type {
  ChannelUsage,
  SessionDetail,
  SessionsPage,
  SessionsQuery,
  UsageGroup,
  UsageLogEntry,
  UsageLogsPage,
  UsageLogsQuery,
  UsageOverview,
  UsageOverviewQuery,
} from '../../contracts/console-api.ts';
import { usdOfNano } from '../../projector/read-models/usage/rollup.ts';
import type { UsageGroupsQuery, UsageReadModel } from '../ports.ts';
import { channelUsageOf } from '../usage-channel.ts';
import { attemptsOf } from '../usage-log-attempts.ts';
import { decodeCursor, encodeCursor } from '../usage-log-cursor.ts';
import { attributionFilters } from './attribution-filters.ts';
import { addAttributionColumns } from './attribution-migration.ts';
import { SqliteAttributionQueries } from './attribution-queries.ts';
import type { SqliteDatabase } from './database.ts';
import { usageLogFilterConditions } from './usage-log-filters.ts';
import { SqliteUsageOverview } from './usage-overview.ts';
import { registerHistogramFunctions } from './usage-rollups.ts';

export class SqliteUsageQueries implements UsageReadModel {
  readonly #database: SqliteDatabase;
  readonly #overview: SqliteUsageOverview;
  readonly #attribution: SqliteAttributionQueries;

  constructor(database: SqliteDatabase) {
    this.#database = database;
    registerHistogramFunctions(database);
    this.#overview = new SqliteUsageOverview(database);
    addAttributionColumns(database);
    this.#attribution = new SqliteAttributionQueries(database);
  }

  async overview(query: UsageOverviewQuery & { userId: string | null }): Promise<UsageOverview> {
    return this.#overview.overview(query);
  }

  async groups(query: UsageGroupsQuery): Promise<UsageGroup[]> {
    return this.#attribution.groups(query);
  }

  async sessions(query: SessionsQuery & { userId: string | null }): Promise<SessionsPage> {
    return this.#attribution.sessions(query);
  }

  async session(sessionId: string, userId: string | null): Promise<SessionDetail | null> {
    return this.#attribution.session(sessionId, userId);
  }

  async channelUsage(sinceMs: number): Promise<ChannelUsage[]> {
    const rows = this.#database
      .prepare(`SELECT channel_id, sum(calls) AS calls, sum(errors) AS errors, sum(latency_ms_sum) AS latency
        FROM usage_hourly WHERE hour >= ? AND channel_id != '' GROUP BY channel_id ORDER BY channel_id`)
      .all(sinceMs) as Array<{ channel_id: string; calls: number; errors: number; latency: number }>;
    return rows.map(channelUsageOf);
  }

  async logs(query: UsageLogsQuery & { userId: string | null }): Promise<UsageLogsPage> {
    const limit = query.limit ?? 50;
    const conditions: string[] = [];
    const cursor = decodeCursor(query.cursor);
    if (query.userId !== null) conditions.push('user_id = @userId');
    if (query.from) conditions.push('started_at >= @from');
    if (query.to) conditions.push('started_at < @to');
    // A part of the name, any case: users remember `sonnet`, not the dated id.
    if (query.model) conditions.push("instr(lower(coalesce(model_requested, '')), @model) > 0");
    if (query.token_id) conditions.push('token_id = @tokenId');
    if (query.request_id) conditions.push('(request_id = @requestId OR client_request_id = @requestId)');
    // The same rule as the rollups' error count: a 4xx/5xx answer or an in-stream error.
    if (query.status === 'ok') conditions.push('coalesce(status, 200) < 400 AND error_type IS NULL');
    if (query.status === 'error') conditions.push('(coalesce(status, 200) >= 400 OR error_type IS NOT NULL)');
    const attribution = attributionFilters(query);
    const filters = usageLogFilterConditions(query);
    conditions.push(...attribution.conditions, ...filters.conditions);
    const parameters = {
      ...attribution.parameters,
      ...filters.parameters,
      userId: query.userId,
      from: query.from ? Date.parse(query.from) : null,
      to: query.to ? Date.parse(query.to) : null,
      model: query.model?.toLowerCase() ?? null,
      tokenId: query.token_id ?? null,
      requestId: query.request_id ?? null,
      cursorTime: cursor?.time ?? null,
      cursorId: cursor?.id ?? null,
      limit: limit + 1,
    };
    const matching = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    if (cursor) conditions.push('(started_at < @cursorTime OR (started_at = @cursorTime AND request_id < @cursorId))');
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = this.#database
      .prepare(`SELECT * FROM requests ${where} ORDER BY started_at DESC, request_id DESC LIMIT @limit`)
      .all(parameters) as RequestRow[];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const result: UsageLogsPage = {
      items: page.map(toLogEntry),
      next_cursor: rows.length > limit && last ? encodeCursor(last.started_at, last.request_id) : null,
    };
    // Counted once, for the first page: later pages keep the figure the client already has.
    if (!cursor) {
      result.total = this.#database
        .prepare(`SELECT count(*) FROM requests ${matching}`)
        .pluck()
        .get(parameters) as number;
    }
    return result;
  }
}

interface RequestRow {
  request_id: string;
  client_request_id: string | null;
  started_at: number;
  user_id: string;
  token_id: string;
  channel_id: string | null;
  endpoint: string | null;
  model_requested: string | null;
  model_served: string | null;
  stream: number | null;
  status: number | null;
  error_type: string | null;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  usage_source: string | null;
  usage_applied: number;
  cost_nano_usd: number | null;
  latency_ms: number | null;
  first_token_ms: number | null;
  attempts: string | null;
  end_user: string | null;
  session_id: string | null;
  metadata: string | null;
}

/** Null for usage of a model with no price; a request that used no tokens cost nothing. */
function costOf(row: RequestRow): number | null {
  if (row.usage_applied === 0) return 0;
  return row.cost_nano_usd === null ? null : usdOfNano(row.cost_nano_usd);
}

function toLogEntry(row: RequestRow): UsageLogEntry {
  return {
    request_id: row.request_id,
    client_request_id: row.client_request_id,
    started_at: new Date(row.started_at).toISOString(),
    user_id: row.user_id || null,
    token_id: row.token_id || null,
    channel_id: row.channel_id,
    endpoint: row.endpoint ?? '',
    model_requested: row.model_requested,
    model_served: row.model_served,
    stream: row.stream === 1,
    status: row.status ?? 0,
    error_type: row.error_type,
    error_message: row.error_message,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cached_tokens: row.cached_tokens,
    cache_write_tokens: row.cache_write_tokens,
    reasoning_tokens: row.reasoning_tokens,
    usage_estimated: row.usage_source === 'estimated',
    cost_usd: costOf(row),
    latency_ms: row.latency_ms ?? 0,
    first_token_ms: row.first_token_ms,
    attempts: attemptsOf(row.attempts),
    end_user: row.end_user,
    session_id: row.session_id,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
  };
}
