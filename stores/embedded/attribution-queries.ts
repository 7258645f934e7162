/**
 * @module stores/embedded/attribution-queries
 * The overview's `by_group` and sessions, read from the SQLite request rows (the rollups keep no
 * attribution). Both sum each request once: its call when its request event was applied, its tokens
 * and cost when its usage was, as the rollups count them.
 */
import {
  SESSION_REQUESTS_MAX,
  type SessionDetail,
  type SessionSummary,
  type SessionsPage,
  type SessionsQuery,
  USAGE_GROUPS_MAX,
  type UsageGroup,
  type UsageGrouping,
} from '../../contracts/console-api.ts';
import { usdOfNano } from '../../projector/read-models/usage/rollup.ts';
import type { UsageGroupsQuery } from '../ports.ts';
import { metadataPath } from './attribution-filters.ts';
import type { SqliteDatabase } from './database.ts';

/** Sorts by the sum itself: the totals' names are also the columns', which an ORDER BY would read. */
const COST = 'sum(coalesce(cost_nano_usd, 0))';

const totalsSql = `
  sum(request_applied) AS calls,
  sum(request_applied = 1 AND (status >= 400 OR error_type IS NOT NULL)) AS errors,
  sum(prompt_tokens) AS prompt_tokens,
  sum(completion_tokens) AS completion_tokens,
  sum(coalesce(cost_nano_usd, 0)) AS cost_nano_usd,
  sum(usage_applied = 1 AND cost_nano_usd IS NULL) AS unpriced_requests`;

interface TotalsRow {
  calls: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nano_usd: number;
  unpriced_requests: number;
}

function totalsOf(row: TotalsRow) {
  return {
    calls: row.calls,
    errors: row.errors,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.prompt_tokens + row.completion_tokens,
    cost_usd: usdOfNano(row.cost_nano_usd),
    unpriced_requests: row.unpriced_requests,
  };
}

function groupExpression(grouping: UsageGrouping): string {
  if (grouping.kind === 'end_user') return "coalesce(end_user, '')";
  if (grouping.kind === 'session') return "coalesce(session_id, '')";
  return "coalesce(json_extract(metadata, @groupPath), '')";
}

type SummaryRow = TotalsRow & {
  session_id: string;
  first_at: number;
  last_at: number;
  models: string;
  end_users: string;
};

const summarySql = `session_id, min(started_at) AS first_at, max(started_at) AS last_at, ${totalsSql},
  json_group_array(DISTINCT model_requested) AS models, json_group_array(DISTINCT end_user) AS end_users`;

const texts = (json: string) => (JSON.parse(json) as Array<string | null>).filter((text) => text !== null).sort();

function summaryOf(row: SummaryRow): SessionSummary {
  return {
    session_id: row.session_id,
    first_at: new Date(row.first_at).toISOString(),
    last_at: new Date(row.last_at).toISOString(),
    ...totalsOf(row),
    models: texts(row.models),
    end_users: texts(row.end_users),
  };
}

export class SqliteAttributionQueries {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    this.#database = database;
  }

  groups(query: UsageGroupsQuery): UsageGroup[] {
    const conditions = ['started_at >= @from', 'started_at < @to'];
    if (query.userId !== null) conditions.push('user_id = @userId');
    if (query.model) conditions.push("coalesce(model_requested, '') = @model");
    if (query.tokenId) conditions.push('token_id = @tokenId');
    const rows = this.#database
      .prepare(
        `SELECT ${groupExpression(query.grouping)} AS grp, ${totalsSql}
         FROM requests WHERE ${conditions.join(' AND ')}
         GROUP BY grp
         ORDER BY ${COST} DESC, sum(prompt_tokens) + sum(completion_tokens) DESC, sum(request_applied) DESC, grp
         LIMIT ${USAGE_GROUPS_MAX}`,
      )
      .all({
        from: query.fromMs,
        to: query.toMs,
        userId: query.userId,
        model: query.model ?? null,
        tokenId: query.tokenId ?? null,
        groupPath: query.grouping.kind === 'metadata' ? metadataPath(query.grouping.key) : null,
      }) as Array<TotalsRow & { grp: string | number }>;
    return rows.map((row) => ({ group: row.grp === '' ? null : String(row.grp), ...totalsOf(row) }));
  }

  sessions(query: SessionsQuery & { userId: string | null }): SessionsPage {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const conditions = ['session_id IS NOT NULL'];
    if (query.userId !== null) conditions.push('user_id = @userId');
    if (query.from) conditions.push('started_at >= @from');
    if (query.to) conditions.push('started_at < @to');
    const order =
      query.sort === 'cost' ? `${COST} DESC, last_at DESC, session_id DESC` : 'last_at DESC, session_id DESC';
    const rows = this.#database
      .prepare(
        `SELECT ${summarySql} FROM requests WHERE ${conditions.join(' AND ')}
         GROUP BY session_id ORDER BY ${order} LIMIT @limit OFFSET @offset`,
      )
      .all({
        userId: query.userId,
        from: query.from ? Date.parse(query.from) : null,
        to: query.to ? Date.parse(query.to) : null,
        limit: limit + 1,
        offset,
      }) as SummaryRow[];
    return {
      items: rows.slice(0, limit).map(summaryOf),
      next_offset: rows.length > limit ? offset + limit : null,
    };
  }

  session(sessionId: string, userId: string | null): SessionDetail | null {
    const where = `session_id = @sessionId${userId === null ? '' : ' AND user_id = @userId'}`;
    const parameters = { sessionId, userId };
    const summary = this.#database
      .prepare(`SELECT ${summarySql} FROM requests WHERE ${where} GROUP BY session_id`)
      .get(parameters) as SummaryRow | undefined;
    if (!summary) return null;
    const rows = this.#database
      .prepare(`SELECT * FROM requests WHERE ${where} ORDER BY started_at, request_id LIMIT ${SESSION_REQUESTS_MAX}`)
      .all(parameters) as SessionRow[];
    return {
      ...summaryOf(summary),
      requests: rows.map(sessionRequestOf),
      channels: [...new Set(rows.map((row) => row.channel_id).filter((id): id is string => !!id))].sort(),
    };
  }
}

interface SessionRow {
  request_id: string;
  started_at: number;
  endpoint: string | null;
  model_requested: string | null;
  model_served: string | null;
  channel_id: string | null;
  status: number | null;
  error_type: string | null;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nano_usd: number | null;
  usage_applied: number;
  latency_ms: number | null;
  end_user: string | null;
  metadata: string | null;
}

function sessionRequestOf(row: SessionRow): SessionDetail['requests'][number] {
  return {
    request_id: row.request_id,
    started_at: new Date(row.started_at).toISOString(),
    endpoint: row.endpoint ?? '',
    model_requested: row.model_requested,
    model_served: row.model_served,
    channel_id: row.channel_id,
    status: row.status ?? 0,
    error_type: row.error_type,
    error_message: row.error_message,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cost_usd: row.usage_applied === 0 ? 0 : row.cost_nano_usd === null ? null : usdOfNano(row.cost_nano_usd),
    latency_ms: row.latency_ms ?? 0,
    end_user: row.end_user,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
  };
}
