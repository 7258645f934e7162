/**
 * @module stores/cluster/clickhouse-attribution-queries
 * The overview's `by_group` and sessions from ClickHouse's raw tables (the rollups keep no
 * attribution), in the same shapes and order as the embedded store. Each request counts once:
 * `requests` and `usage` are read with FINAL, and a request's usage is joined to it by id (none: no
 * tokens, no cost). Sums come back as text (64-bit integers in JSON) and are read as numbers.
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
import { metadataValueSql } from './clickhouse-attribution.ts';
import { integerLiteral, stringLiteral } from './clickhouse-sql.ts';

type Rows = <Row>(query: string) => Promise<Row[]>;

function groupSql(grouping: UsageGrouping): string {
  if (grouping.kind === 'end_user') return 'end_user';
  if (grouping.kind === 'session') return 'session_id';
  return metadataValueSql(grouping.key);
}

/** The usage rows of the requests matching `where`: only those are read, not the whole table. */
function usageOf(db: string, where: string): string {
  return `request_id IN (SELECT request_id FROM ${db}.requests WHERE ${where})`;
}

/** Requests (FINAL) matching `where`, each with its usage's tokens and cost (0 without usage). */
function joined(db: string, columns: string, where: string): string {
  return `SELECT * FROM (
      SELECT request_id, ${columns}, toUInt64(status >= 400 OR error_type != '') AS failed
      FROM ${db}.requests FINAL WHERE ${where}) AS r
    ANY LEFT JOIN (
      SELECT request_id, prompt_tokens, completion_tokens, cost_nano_usd, toUInt64(priced = 0) AS unpriced
      FROM ${db}.usage FINAL WHERE ${usageOf(db, where)}) AS u USING request_id`;
}

const totalsSql = `toString(count()) AS n_calls, toString(sum(failed)) AS n_errors,
  toString(sum(prompt_tokens)) AS n_prompt, toString(sum(completion_tokens)) AS n_completion,
  toString(sum(cost_nano_usd)) AS n_cost, toString(sum(unpriced)) AS n_unpriced`;

interface TotalsRow {
  n_calls: string;
  n_errors: string;
  n_prompt: string;
  n_completion: string;
  n_cost: string;
  n_unpriced: string;
}

function totalsOf(row: TotalsRow) {
  const prompt = Number(row.n_prompt);
  const completion = Number(row.n_completion);
  return {
    calls: Number(row.n_calls),
    errors: Number(row.n_errors),
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cost_usd: usdOfNano(Number(row.n_cost)),
    unpriced_requests: Number(row.n_unpriced),
  };
}

/** `from <= started_at_ms < to`, with the seconds column of the table's key narrowing the read. */
function timeConditions(fromMs: number | null, toMs: number | null): string[] {
  const conditions: string[] = [];
  if (fromMs !== null) {
    conditions.push(`started_at >= toDateTime(${integerLiteral(Math.max(0, Math.floor(fromMs / 1000)))})`);
    conditions.push(`started_at_ms >= ${integerLiteral(Math.max(0, fromMs))}`);
  }
  if (toMs !== null) conditions.push(`started_at_ms < ${integerLiteral(Math.max(0, toMs))}`);
  return conditions;
}

export async function readGroups(rows: Rows, db: string, query: UsageGroupsQuery): Promise<UsageGroup[]> {
  const conditions = ['1', ...timeConditions(query.fromMs, query.toMs)];
  if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
  if (query.model) conditions.push(`model_requested = ${stringLiteral(query.model)}`);
  if (query.tokenId) conditions.push(`token_id = ${stringLiteral(query.tokenId)}`);
  const found = await rows<TotalsRow & { grp: string }>(
    `SELECT grp, ${totalsSql}
     FROM (${joined(db, `${groupSql(query.grouping)} AS grp`, conditions.join(' AND '))})
     GROUP BY grp
     ORDER BY sum(cost_nano_usd) DESC, sum(prompt_tokens) + sum(completion_tokens) DESC, count() DESC, grp
     LIMIT ${USAGE_GROUPS_MAX}`,
  );
  return found.map((row) => ({ group: row.grp === '' ? null : row.grp, ...totalsOf(row) }));
}

type SummaryRow = TotalsRow & {
  session_id: string;
  first_ms: string;
  last_ms: string;
  models: string[];
  end_users: string[];
};

const summaryColumns = 'session_id, started_at_ms, model_requested, end_user';
const summarySql = `session_id, toString(min(started_at_ms)) AS first_ms, toString(max(started_at_ms)) AS last_ms,
  ${totalsSql}, groupUniqArray(model_requested) AS models, groupUniqArray(end_user) AS end_users`;

const present = (texts: string[]) => texts.filter((text) => text !== '').sort();

function summaryOf(row: SummaryRow): SessionSummary {
  return {
    session_id: row.session_id,
    first_at: new Date(Number(row.first_ms)).toISOString(),
    last_at: new Date(Number(row.last_ms)).toISOString(),
    ...totalsOf(row),
    models: present(row.models),
    end_users: present(row.end_users),
  };
}

export async function readSessions(
  rows: Rows,
  db: string,
  query: SessionsQuery & { userId: string | null },
): Promise<SessionsPage> {
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const conditions = [
    "session_id != ''",
    ...timeConditions(query.from ? Date.parse(query.from) : null, query.to ? Date.parse(query.to) : null),
  ];
  if (query.userId !== null) conditions.push(`user_id = ${stringLiteral(query.userId)}`);
  const order =
    query.sort === 'cost'
      ? 'sum(cost_nano_usd) DESC, max(started_at_ms) DESC, session_id DESC'
      : 'max(started_at_ms) DESC, session_id DESC';
  const found = await rows<SummaryRow>(
    `SELECT ${summarySql} FROM (${joined(db, summaryColumns, conditions.join(' AND '))})
     GROUP BY session_id ORDER BY ${order}
     LIMIT ${integerLiteral(offset)}, ${integerLiteral(limit + 1)}`,
  );
  return { items: found.slice(0, limit).map(summaryOf), next_offset: found.length > limit ? offset + limit : null };
}

interface SessionRow {
  request_id: string;
  started_at_ms: string;
  endpoint: string;
  model_requested: string;
  model_served: string;
  channel_id: string;
  status: number;
  error_type: string;
  error_message: string;
  prompt_tokens: string;
  completion_tokens: string;
  cost_nano_usd: string;
  priced: number | null;
  has_usage: number;
  latency_ms: number;
  end_user: string;
  metadata_keys: string[];
  metadata_values: string[];
}

export async function readSession(
  rows: Rows,
  db: string,
  sessionId: string,
  userId: string | null,
): Promise<SessionDetail | null> {
  const where = `session_id = ${stringLiteral(sessionId)}${userId === null ? '' : ` AND user_id = ${stringLiteral(userId)}`}`;
  const [summaries, requests] = await Promise.all([
    rows<SummaryRow>(`SELECT ${summarySql} FROM (${joined(db, summaryColumns, where)}) GROUP BY session_id`),
    rows<SessionRow>(
      `SELECT request_id, toString(started_at_ms) AS started_at_ms, endpoint, model_requested, model_served,
         channel_id, status, error_type, error_message, latency_ms, end_user, metadata_keys, metadata_values,
         toString(prompt_tokens) AS prompt_tokens, toString(completion_tokens) AS completion_tokens,
         toString(cost_nano_usd) AS cost_nano_usd, priced, has_usage
       FROM (SELECT * FROM (
           SELECT request_id, started_at_ms, endpoint, model_requested, model_served, channel_id, status, error_type,
             error_message, latency_ms, end_user, metadata_keys, metadata_values
           FROM ${db}.requests FINAL WHERE ${where}) AS r
         ANY LEFT JOIN (
           SELECT request_id, prompt_tokens, completion_tokens, cost_nano_usd, priced, toUInt8(1) AS has_usage
           FROM ${db}.usage FINAL WHERE ${usageOf(db, where)}) AS u USING request_id)
       ORDER BY started_at_ms, request_id LIMIT ${SESSION_REQUESTS_MAX}`,
    ),
  ]);
  const summary = summaries[0];
  if (!summary) return null;
  return {
    ...summaryOf(summary),
    requests: requests.map(sessionRequestOf),
    channels: [...new Set(requests.map((row) => row.channel_id).filter((id) => id !== ''))].sort(),
  };
}

const textOrNull = (text: string) => (text === '' ? null : text);

function sessionRequestOf(row: SessionRow): SessionDetail['requests'][number] {
  return {
    request_id: row.request_id,
    started_at: new Date(Number(row.started_at_ms)).toISOString(),
    endpoint: row.endpoint,
    model_requested: textOrNull(row.model_requested),
    model_served: textOrNull(row.model_served),
    channel_id: textOrNull(row.channel_id),
    status: Number(row.status),
    error_type: textOrNull(row.error_type),
    error_message: textOrNull(row.error_message),
    prompt_tokens: Number(row.prompt_tokens),
    completion_tokens: Number(row.completion_tokens),
    cost_usd: Number(row.has_usage) !== 1 ? 0 : Number(row.priced) === 1 ? usdOfNano(Number(row.cost_nano_usd)) : null,
    latency_ms: Number(row.latency_ms),
    end_user: textOrNull(row.end_user),
    metadata:
      row.metadata_keys.length === 0
        ? null
        : Object.fromEntries(row.metadata_keys.map((key, index) => [key, row.metadata_values[index] ?? ''])),
  };
}
