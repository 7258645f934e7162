/**
 * @module stores/embedded/usage-writer
 * Applies traffic events to the SQLite usage tables. Each request row remembers whether its
 * `request.completed` and its `usage.recorded` were applied; the rollups and the key's usage move
 * only on the first application, so a replayed event changes nothing.
 */
import type { RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { isError, rollupKeyOfRequest, rollupKeyOfUsage } from '../../projector/read-models/usage/rollup.ts';
import type { SqliteDatabase } from './database.ts';

export class SqliteUsageWriter {
  readonly #applyRequest;
  readonly #applyUsage;
  readonly #rollupCall;
  readonly #rollupTokens;
  readonly #touchToken;
  readonly #countTokens;

  constructor(database: SqliteDatabase) {
    this.#applyRequest = database.prepare(`
      INSERT INTO requests (request_id, started_at, user_id, token_id, endpoint, model_requested, model_served,
        channel_id, stream, status, error_type, error_message, latency_ms, first_token_ms, client_aborted, request_applied)
      VALUES (@requestId, @startedAt, @userId, @tokenId, @endpoint, @modelRequested, @modelServed,
        @channelId, @stream, @status, @errorType, @errorMessage, @latencyMs, @firstTokenMs, @clientAborted, 1)
      ON CONFLICT (request_id) DO UPDATE SET started_at = excluded.started_at, user_id = excluded.user_id,
        token_id = excluded.token_id, endpoint = excluded.endpoint, model_requested = excluded.model_requested,
        model_served = excluded.model_served, channel_id = excluded.channel_id, stream = excluded.stream,
        status = excluded.status, error_type = excluded.error_type, error_message = excluded.error_message,
        latency_ms = excluded.latency_ms, first_token_ms = excluded.first_token_ms,
        client_aborted = excluded.client_aborted, request_applied = 1
      WHERE requests.request_applied = 0`);
    this.#applyUsage = database.prepare(`
      INSERT INTO requests (request_id, started_at, user_id, token_id, model_requested, channel_id, prompt_tokens,
        completion_tokens, cached_tokens, cache_write_tokens, reasoning_tokens, usage_source, usage_applied)
      VALUES (@requestId, @startedAt, @userId, @tokenId, @model, @channelId, @promptTokens, @completionTokens,
        @cachedTokens, @cacheWriteTokens, @reasoningTokens, @source, 1)
      ON CONFLICT (request_id) DO UPDATE SET prompt_tokens = excluded.prompt_tokens,
        completion_tokens = excluded.completion_tokens, cached_tokens = excluded.cached_tokens,
        cache_write_tokens = excluded.cache_write_tokens, reasoning_tokens = excluded.reasoning_tokens,
        usage_source = excluded.usage_source, usage_applied = 1
      WHERE requests.usage_applied = 0`);
    this.#rollupCall = database.prepare(`
      INSERT INTO usage_hourly (user_id, token_id, model, channel_id, hour, calls, errors, latency_ms_sum)
      VALUES (@userId, @tokenId, @model, @channelId, @hour, 1, @errors, @latencyMs)
      ON CONFLICT DO UPDATE SET calls = calls + 1, errors = errors + excluded.errors,
        latency_ms_sum = latency_ms_sum + excluded.latency_ms_sum`);
    this.#rollupTokens = database.prepare(`
      INSERT INTO usage_hourly (user_id, token_id, model, channel_id, hour, prompt_tokens, completion_tokens,
        cached_tokens, reasoning_tokens)
      VALUES (@userId, @tokenId, @model, @channelId, @hour, @promptTokens, @completionTokens, @cachedTokens,
        @reasoningTokens)
      ON CONFLICT DO UPDATE SET prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens`);
    this.#touchToken = database.prepare(`
      INSERT INTO token_usage (token_id, last_used_at) VALUES (?, ?)
      ON CONFLICT DO UPDATE SET last_used_at = max(coalesce(last_used_at, ''), excluded.last_used_at)`);
    this.#countTokens = database.prepare(`
      INSERT INTO token_usage (token_id, used_tokens) VALUES (?, ?)
      ON CONFLICT DO UPDATE SET used_tokens = used_tokens + excluded.used_tokens`);
  }

  /** Returns the token whose usage changed, if any. */
  applyRequest(event: RequestCompleted): string | null {
    const body = event.body;
    const result = this.#applyRequest.run({
      ...body,
      startedAt: Date.parse(body.startedAt),
      userId: body.userId ?? '',
      tokenId: body.tokenId ?? '',
      stream: body.stream ? 1 : 0,
      clientAborted: body.clientAborted ? 1 : 0,
    });
    if (result.changes === 0) return null;
    this.#rollupCall.run({ ...rollupKeyOfRequest(event), errors: isError(event) ? 1 : 0, latencyMs: body.latencyMs });
    if (!body.tokenId) return null;
    this.#touchToken.run(body.tokenId, body.startedAt);
    return body.tokenId;
  }

  applyUsage(event: UsageRecorded): string | null {
    const body = event.body;
    const result = this.#applyUsage.run({ ...body, startedAt: Date.parse(body.startedAt) });
    if (result.changes === 0) return null;
    this.#rollupTokens.run({ ...rollupKeyOfUsage(event), ...body });
    this.#countTokens.run(body.tokenId, body.promptTokens + body.completionTokens);
    return body.tokenId;
  }
}
