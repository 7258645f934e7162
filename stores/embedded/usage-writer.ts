/**
 * @module stores/embedded/usage-writer
 * Applies traffic events to the SQLite usage tables, one projection batch at a time. Each request row
 * remembers whether its `request.completed` and its `usage.recorded` were applied; the rollups and the
 * key's usage move only on the first application, so a replayed event changes nothing. Those moves
 * are summed over the batch and written once per row at its end (see rollup-batch.ts).
 */
import type { GatewayEvent, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { rollupKeyOfRequest, rollupKeyOfUsage } from '../../projector/read-models/usage/rollup.ts';
import { attributionColumnList, attributionValues } from './attribution-columns.ts';
import { addAttributionColumns } from './attribution-migration.ts';
import type { SqliteDatabase } from './database.ts';
import { type RollupBatch, RollupWriter } from './rollup-batch.ts';
import { migrateUsageRollups } from './usage-migration.ts';

/** The request's columns, in the order of `requestValues`; the first is the key. */
const requestColumnList = [
  'request_id',
  'started_at',
  'user_id',
  'token_id',
  'endpoint',
  'model_requested',
  'model_served',
  'channel_id',
  'stream',
  'status',
  'error_type',
  'error_message',
  'latency_ms',
  'first_token_ms',
  'client_aborted',
  'client_request_id',
  'attempts',
  ...attributionColumnList,
];
/** The request's columns a usage event can fill on its own, in the order of `usageKeyValues`. */
const usageKeyColumnList = ['request_id', 'started_at', 'user_id', 'token_id', 'model_requested', 'channel_id'];
/** The usage's token and cost columns, in the order of `usageValues`. */
const usageColumnList = [
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'usage_source',
  'cost_nano_usd',
];

const REQUEST_COLUMNS = requestColumnList.join(', ');
const REQUEST_COLUMN_COUNT = requestColumnList.length;
const USAGE_COLUMNS = usageColumnList.join(', ');
const USAGE_COLUMN_COUNT = usageColumnList.length;
const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');
const takeExcluded = (columns: string[]) => columns.map((column) => `${column} = excluded.${column}`).join(', ');
const requestColumns = takeExcluded(requestColumnList.slice(1));
const usageColumns = takeExcluded(usageColumnList);

export class SqliteUsageWriter {
  readonly statements;
  readonly rollups: RollupWriter;

  constructor(database: SqliteDatabase) {
    // Before any statement is prepared: an older file lacks the columns they name.
    migrateUsageRollups(database);
    addAttributionColumns(database);
    this.rollups = new RollupWriter(database);
    // Positional parameters: binding by name costs better-sqlite3 a property lookup through the V8
    // API per parameter, about a fifth of a row's insert here.
    this.statements = {
      applyRequest: database.prepare(`
        INSERT INTO requests (${REQUEST_COLUMNS}, request_applied)
        VALUES (${placeholders(REQUEST_COLUMN_COUNT)}, 1)
        ON CONFLICT (request_id) DO UPDATE SET ${requestColumns}, request_applied = 1
        WHERE requests.request_applied = 0`),
      applyUsage: database.prepare(`
        INSERT INTO requests (${usageKeyColumnList.join(', ')}, ${USAGE_COLUMNS}, usage_applied)
        VALUES (${placeholders(usageKeyColumnList.length + USAGE_COLUMN_COUNT)}, 1)
        ON CONFLICT (request_id) DO UPDATE SET ${usageColumns}, usage_applied = 1
        WHERE requests.usage_applied = 0`),
      // Both events of a request met in one batch, and its row is new: one insert holds what the two
      // upserts above would leave (the request's columns, the usage's token counts).
      applyBoth: database.prepare(`
        INSERT INTO requests (${REQUEST_COLUMNS}, ${USAGE_COLUMNS}, request_applied, usage_applied)
        VALUES (${placeholders(REQUEST_COLUMN_COUNT + USAGE_COLUMN_COUNT)}, 1, 1)
        ON CONFLICT (request_id) DO NOTHING`),
      tokenUsage: database.prepare(`
        INSERT INTO token_usage (token_id, used_tokens, last_used_at) VALUES (?, ?, ?)
        ON CONFLICT DO UPDATE SET used_tokens = used_tokens + excluded.used_tokens,
          last_used_at = CASE WHEN excluded.last_used_at IS NULL THEN last_used_at
            ELSE max(coalesce(last_used_at, ''), excluded.last_used_at) END`),
    };
  }

  /** Opens the application of one batch; call `finish()` before the batch's transaction commits. */
  start(batch: readonly { event: GatewayEvent }[], onUsageCounted?: (event: UsageRecorded) => void): UsageBatch {
    return new UsageBatch(this, batch, onUsageCounted);
  }
}

/** The request's columns, in REQUEST_COLUMNS order. */
function requestValues(event: RequestCompleted): unknown[] {
  const body = event.body;
  return [
    body.requestId,
    Date.parse(body.startedAt),
    body.userId ?? '',
    body.tokenId ?? '',
    body.endpoint,
    body.modelRequested,
    body.modelServed,
    body.channelId,
    body.stream ? 1 : 0,
    body.status,
    body.errorType,
    body.errorMessage,
    body.latencyMs,
    body.firstTokenMs,
    body.clientAborted ? 1 : 0,
    body.clientRequestId ?? null,
    body.attempts && body.attempts.length > 0 ? JSON.stringify(body.attempts) : null,
    ...attributionValues(body),
  ];
}

/** The request's columns of a usage event, in `usageKeyColumnList` order. */
function usageKeyValues(event: UsageRecorded): unknown[] {
  const body = event.body;
  return [body.requestId, Date.parse(body.startedAt), body.userId, body.tokenId, body.model, body.channelId];
}

/** The usage's token columns, in USAGE_COLUMNS order. */
function usageValues(event: UsageRecorded): unknown[] {
  const body = event.body;
  return [
    body.promptTokens,
    body.completionTokens,
    body.cachedTokens,
    body.cacheWriteTokens,
    body.reasoningTokens,
    body.source,
    body.costNanoUsd,
  ];
}

/** The traffic of one batch: request rows at once, rollups and key usage summed until `finish()`. */
export class UsageBatch {
  readonly #writer: SqliteUsageWriter;
  readonly #rollups: RollupBatch;
  /** Per token: tokens used, and the latest start of a request, in this batch. */
  readonly #tokens = new Map<string, { used: number; lastUsedAt: string | null }>();
  readonly #touched = new Set<string>();
  /** The usage event of each request whose request event comes earlier in the batch (first of each). */
  readonly #partners = new Map<string, UsageRecorded>();
  /** Usage events already applied together with their request. */
  readonly #appliedWithRequest = new Set<UsageRecorded>();
  /** told of each usage counted now (not a replay), for the projections that count once too (spend) */
  readonly #onUsageCounted: ((event: UsageRecorded) => void) | undefined;

  constructor(
    writer: SqliteUsageWriter,
    batch: readonly { event: GatewayEvent }[],
    onUsageCounted?: (event: UsageRecorded) => void,
  ) {
    this.#writer = writer;
    this.#onUsageCounted = onUsageCounted;
    this.#rollups = writer.rollups.start();
    // Pairs only a usage that follows its request, where the request's insert can take both.
    const requests = new Set<string>();
    for (const { event } of batch) {
      if (event.type === 'request.completed') requests.add(event.body.requestId);
      else if (event.type === 'usage.recorded') {
        const requestId = event.body.requestId;
        if (requests.has(requestId) && !this.#partners.has(requestId)) this.#partners.set(requestId, event);
      }
    }
  }

  apply(event: GatewayEvent): void {
    if (event.type === 'request.completed') this.#applyRequest(event);
    else if (event.type === 'usage.recorded') this.#applyUsage(event);
  }

  #applyRequest(event: RequestCompleted): void {
    const statements = this.#writer.statements;
    const partner = this.#partners.get(event.body.requestId);
    if (partner && !this.#appliedWithRequest.has(partner)) {
      this.#partners.delete(event.body.requestId);
      const inserted = statements.applyBoth.run(...requestValues(event), ...usageValues(partner)).changes > 0;
      if (inserted) {
        this.#countRequest(event);
        this.#countUsage(partner);
        this.#appliedWithRequest.add(partner);
        return;
      }
    }
    if (statements.applyRequest.run(...requestValues(event)).changes > 0) this.#countRequest(event);
  }

  #applyUsage(event: UsageRecorded): void {
    if (this.#appliedWithRequest.has(event)) return;
    if (this.#writer.statements.applyUsage.run(...usageKeyValues(event), ...usageValues(event)).changes > 0) {
      this.#countUsage(event);
    }
  }

  #countRequest(event: RequestCompleted): void {
    const body = event.body;
    this.#rollups.addCall(rollupKeyOfRequest(event), event);
    if (!body.tokenId) return;
    const token = this.#token(body.tokenId);
    if (token.lastUsedAt === null || body.startedAt > token.lastUsedAt) token.lastUsedAt = body.startedAt;
    this.#touched.add(body.tokenId);
  }

  #countUsage(event: UsageRecorded): void {
    const body = event.body;
    this.#rollups.addUsage(rollupKeyOfUsage(event), event);
    this.#token(body.tokenId).used += body.promptTokens + body.completionTokens;
    if (body.tokenId) this.#touched.add(body.tokenId);
    this.#onUsageCounted?.(event);
  }

  #token(tokenId: string): { used: number; lastUsedAt: string | null } {
    let token = this.#tokens.get(tokenId);
    if (!token) {
      token = { used: 0, lastUsedAt: null };
      this.#tokens.set(tokenId, token);
    }
    return token;
  }

  /** Writes the summed rollups and key usage; returns the tokens whose usage changed. */
  finish(): Set<string> {
    this.#rollups.flush();
    for (const [tokenId, token] of this.#tokens) {
      this.#writer.statements.tokenUsage.run(tokenId, token.used, token.lastUsedAt);
    }
    return this.#touched;
  }
}
