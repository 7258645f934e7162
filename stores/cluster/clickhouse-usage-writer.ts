/**
 * @module stores/cluster/clickhouse-usage-writer
 * Writes a batch of traffic events to ClickHouse: raw rows first (deduplicated by request id), then the
 * hourly rollup rows of every (user, hour) the batch touched, recomputed from the raw tables. Replaying a
 * batch any number of times converges to the same totals.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { HOUR_MS, hourOf } from '../../projector/read-models/usage/rollup.ts';
import { identifier, integerLiteral, stringList } from './clickhouse-sql.ts';

const seconds = (milliseconds: number) => Math.floor(milliseconds / 1000);

function requestRow(event: RequestCompleted) {
  const body = event.body;
  const startedAt = Date.parse(body.startedAt);
  return {
    request_id: body.requestId,
    started_at: seconds(startedAt),
    started_at_ms: startedAt,
    user_id: body.userId ?? '',
    token_id: body.tokenId ?? '',
    endpoint: body.endpoint,
    model_requested: body.modelRequested ?? '',
    model_served: body.modelServed ?? '',
    channel_id: body.channelId ?? '',
    stream: body.stream ? 1 : 0,
    status: body.status,
    error_type: body.errorType ?? '',
    error_message: body.errorMessage ?? '',
    latency_ms: body.latencyMs,
    first_token_ms: body.firstTokenMs ?? 0,
    has_first_token: body.firstTokenMs === null ? 0 : 1,
    client_aborted: body.clientAborted ? 1 : 0,
    event_id: event.eventId,
  };
}

function usageRow(event: UsageRecorded) {
  const body = event.body;
  return {
    request_id: body.requestId,
    started_at: seconds(Date.parse(body.startedAt)),
    user_id: body.userId,
    token_id: body.tokenId,
    model: body.model,
    channel_id: body.channelId ?? '',
    prompt_tokens: body.promptTokens,
    completion_tokens: body.completionTokens,
    cached_tokens: body.cachedTokens,
    cache_write_tokens: body.cacheWriteTokens,
    reasoning_tokens: body.reasoningTokens,
    estimated: body.source === 'estimated' ? 1 : 0,
    event_id: event.eventId,
  };
}

interface RollupRow {
  hour: number;
  user_id: string;
  token_id: string;
  model: string;
  channel_id: string;
  calls: number;
  errors: number;
  latency_ms_sum: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  version: number;
}

export class ClickHouseUsageWriter {
  readonly #client: ClickHouseClient;
  readonly #database: string;

  constructor(client: ClickHouseClient, database: string) {
    this.#client = client;
    this.#database = identifier(database);
  }

  async write(events: readonly GatewayEvent[]): Promise<void> {
    const requests = events
      .filter((event): event is RequestCompleted => event.type === 'request.completed')
      .map(requestRow);
    const usage = events.filter((event): event is UsageRecorded => event.type === 'usage.recorded').map(usageRow);
    if (requests.length > 0)
      await this.#client.insert({ table: `${this.#database}.requests`, values: requests, format: 'JSONEachRow' });
    if (usage.length > 0)
      await this.#client.insert({ table: `${this.#database}.usage`, values: usage, format: 'JSONEachRow' });
    const touched = new Map<string, Set<number>>();
    for (const row of [...requests, ...usage]) {
      const hours = touched.get(row.user_id) ?? new Set<number>();
      hours.add(hourOf(new Date(row.started_at * 1000).toISOString()));
      touched.set(row.user_id, hours);
    }
    if (touched.size > 0) await this.#recomputeRollups(touched);
  }

  async #recomputeRollups(touched: Map<string, Set<number>>): Promise<void> {
    const allHours = [...touched.values()].flatMap((hours) => [...hours]);
    const from = seconds(Math.min(...allHours));
    const to = seconds(Math.max(...allHours) + HOUR_MS);
    const where = `user_id IN ${stringList([...touched.keys()])} AND started_at >= ${integerLiteral(from)} AND started_at < ${integerLiteral(to)}`;
    const db = this.#database;
    const calls = await this.#rows<{
      hour: string;
      user_id: string;
      token_id: string;
      model: string;
      channel_id: string;
      calls: string;
      errors: string;
      latency_ms_sum: number;
    }>(
      `SELECT toUInt32(toStartOfHour(started_at)) AS hour, user_id, token_id, model_requested AS model, channel_id,
         count() AS calls, sum(status >= 400 OR error_type != '') AS errors, sum(latency_ms) AS latency_ms_sum
       FROM ${db}.requests FINAL WHERE ${where} GROUP BY hour, user_id, token_id, model, channel_id`,
    );
    const tokens = await this.#rows<{
      hour: string;
      user_id: string;
      token_id: string;
      model: string;
      channel_id: string;
      prompt_tokens: string;
      completion_tokens: string;
      cached_tokens: string;
      reasoning_tokens: string;
    }>(
      `SELECT toUInt32(toStartOfHour(started_at)) AS hour, user_id, token_id, model, channel_id,
         sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
         sum(cached_tokens) AS cached_tokens, sum(reasoning_tokens) AS reasoning_tokens
       FROM ${db}.usage FINAL WHERE ${where} GROUP BY hour, user_id, token_id, model, channel_id`,
    );
    const version = Date.now();
    const rollups = new Map<string, RollupRow>();
    const rowFor = (row: { hour: string; user_id: string; token_id: string; model: string; channel_id: string }) => {
      const key = [row.hour, row.user_id, row.token_id, row.model, row.channel_id].join('\u0000');
      let rollup = rollups.get(key);
      if (!rollup) {
        rollup = {
          hour: Number(row.hour),
          user_id: row.user_id,
          token_id: row.token_id,
          model: row.model,
          channel_id: row.channel_id,
          calls: 0,
          errors: 0,
          latency_ms_sum: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          cached_tokens: 0,
          reasoning_tokens: 0,
          version,
        };
        rollups.set(key, rollup);
      }
      return rollup;
    };
    // Keep only the (user, hour) pairs the batch touched: the range query may catch neighbours.
    const wanted = (row: { hour: string; user_id: string }) =>
      touched.get(row.user_id)?.has(Number(row.hour) * 1000) ?? false;
    for (const row of calls.filter(wanted))
      Object.assign(rowFor(row), {
        calls: Number(row.calls),
        errors: Number(row.errors),
        latency_ms_sum: row.latency_ms_sum,
      });
    for (const row of tokens.filter(wanted)) {
      Object.assign(rowFor(row), {
        prompt_tokens: Number(row.prompt_tokens),
        completion_tokens: Number(row.completion_tokens),
        cached_tokens: Number(row.cached_tokens),
        reasoning_tokens: Number(row.reasoning_tokens),
      });
    }
    if (rollups.size > 0)
      await this.#client.insert({ table: `${db}.usage_hourly`, values: [...rollups.values()], format: 'JSONEachRow' });
  }

  async #rows<Row>(query: string): Promise<Row[]> {
    const result = await this.#client.query({ query, format: 'JSONEachRow' });
    return (await result.json()) as Row[];
  }
}
