/**
 * @module stores/cluster/clickhouse-usage-writer
 * Writes a batch of traffic events to ClickHouse: raw rows first (deduplicated by request id), then the
 * rollup rows of every (user, hour) the batch touched, recomputed inside ClickHouse from the raw tables
 * (see clickhouse-rollup-sql.ts), then the all-users rollups of the touched hours. Replaying a batch any
 * number of times converges to the same totals. Per batch: two inserts, then two pairs of
 * `INSERT … SELECT` statements, each pair sent at once.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { type BackfillLog, backfillRollups } from './clickhouse-rollup-backfill.ts';
import {
  chunkTouched,
  hoursCondition,
  keyRollupInsert,
  modelRollupInsert,
  pairsCondition,
  statementSettings,
  type TouchedHours,
  tokenRollupInsert,
  userModelRollupInsert,
} from './clickhouse-rollup-sql.ts';
import { identifier } from './clickhouse-sql.ts';

const HOUR_SECONDS = 3600;

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
    client_request_id: body.clientRequestId ?? '',
    attempts: body.attempts && body.attempts.length > 0 ? JSON.stringify(body.attempts) : '',
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
    cost_nano_usd: body.costNanoUsd ?? 0,
    priced: body.costNanoUsd === null ? 0 : 1,
  };
}

export class ClickHouseUsageWriter {
  readonly #client: ClickHouseClient;
  readonly #database: string;
  #lastVersion = 0;

  constructor(client: ClickHouseClient, database: string) {
    this.#client = client;
    this.#database = identifier(database);
  }

  /** Once, before the first batch: fills the rollups this deployment did not have yet. */
  async prepare(log?: BackfillLog): Promise<void> {
    await backfillRollups(this.#client, this.#database, { log });
  }

  async write(events: readonly GatewayEvent[]): Promise<void> {
    const requests = events
      .filter((event): event is RequestCompleted => event.type === 'request.completed')
      .map(requestRow);
    const usage = events.filter((event): event is UsageRecorded => event.type === 'usage.recorded').map(usageRow);
    await Promise.all([this.#insert('requests', requests), this.#insert('usage', usage)]);
    const touched: TouchedHours = new Map();
    for (const row of [...requests, ...usage]) {
      const hours = touched.get(row.user_id) ?? new Set<number>();
      hours.add(row.started_at - (row.started_at % HOUR_SECONDS));
      touched.set(row.user_id, hours);
    }
    for (const chunk of chunkTouched(touched)) await this.#recompute(chunk);
  }

  async #insert(table: string, values: readonly object[]): Promise<void> {
    if (values.length > 0)
      await this.#client.insert({ table: `${this.#database}.${table}`, values: [...values], format: 'JSONEachRow' });
  }

  /**
   * Versions are microseconds, taken before a statement reads its sources: of two recomputes of the
   * same rows, the one with the higher version started reading later and saw every write the other
   * saw, so the surviving row is never the staler one, even with batches written concurrently.
   */
  #nextVersion(): number {
    this.#lastVersion = Math.max(Date.now() * 1000, this.#lastVersion + 1);
    return this.#lastVersion;
  }

  #run(query: string): Promise<unknown> {
    return this.#client.command({ query, clickhouse_settings: statementSettings });
  }

  async #recompute(touched: TouchedHours): Promise<void> {
    const db = this.#database;
    const raw = pairsCondition(touched, 'started_at');
    const first = this.#nextVersion();
    await Promise.all([this.#run(keyRollupInsert(db, raw, first)), this.#run(userModelRollupInsert(db, raw, first))]);
    const hours = new Set([...touched.values()].flatMap((set) => [...set]));
    const second = this.#nextVersion();
    await Promise.all([
      this.#run(tokenRollupInsert(db, pairsCondition(touched, 'hour'), second)),
      this.#run(modelRollupInsert(db, hoursCondition([...hours]), second)),
    ]);
  }
}
