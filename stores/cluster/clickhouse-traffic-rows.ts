/**
 * @module stores/cluster/clickhouse-traffic-rows
 * The raw rows of a batch of traffic events, encoded as ClickHouse's TabSeparated bytes, and the
 * (user, minute) pairs the batch touched, which the write's rollups are recomputed for. The projector
 * encodes a batch when it reads it and keeps only these until the write (up to a second under live
 * traffic, a whole write's worth over a backlog): the parsed events held that long were copied by
 * every young-generation collection and then promoted, and the collector was a quarter of the
 * projector's CPU (docs/performance.md, "The projector's garbage").
 */
import type { GatewayEvent, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { attributionColumns, attributionRowValues } from './clickhouse-attribution.ts';
import type { TouchedHours } from './clickhouse-rollup-sql.ts';
import { TsvBuffers, tsvLine } from './clickhouse-tsv.ts';

const MINUTE_SECONDS = 60;

const seconds = (milliseconds: number) => Math.floor(milliseconds / 1000);

export interface TrafficRows {
  /** `requests` rows, in `requestColumns` order */
  requests: Buffer[];
  /** `usage` rows, in `usageColumns` order */
  usage: Buffer[];
  /** the minutes (epoch seconds) the rows fall in, by user id ('' for requests without a user) */
  touched: TouchedHours;
}

/** The columns of a `requests` row, in the order `requestLine` writes them. */
export const requestColumns = [
  'request_id',
  'started_at',
  'started_at_ms',
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
  'has_first_token',
  'client_aborted',
  'event_id',
  'client_request_id',
  'attempts',
  ...attributionColumns,
] as const;

function requestLine(body: RequestCompleted['body'], eventId: string, startedAt: number): string {
  return tsvLine([
    body.requestId,
    seconds(startedAt),
    startedAt,
    body.userId ?? '',
    body.tokenId ?? '',
    body.endpoint,
    body.modelRequested ?? '',
    body.modelServed ?? '',
    body.channelId ?? '',
    body.stream ? 1 : 0,
    body.status,
    body.errorType ?? '',
    body.errorMessage ?? '',
    body.latencyMs,
    body.firstTokenMs ?? 0,
    body.firstTokenMs === null ? 0 : 1,
    body.clientAborted ? 1 : 0,
    eventId,
    body.clientRequestId ?? '',
    body.attempts && body.attempts.length > 0 ? JSON.stringify(body.attempts) : '',
    ...attributionRowValues(body),
  ]);
}

/** The columns of a `usage` row, in the order `usageLine` writes them. */
export const usageColumns = [
  'request_id',
  'started_at',
  'user_id',
  'token_id',
  'model',
  'channel_id',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'estimated',
  'event_id',
  'cost_nano_usd',
  'priced',
] as const;

function usageLine(body: UsageRecorded['body'], eventId: string, startedAt: number): string {
  return tsvLine([
    body.requestId,
    seconds(startedAt),
    body.userId,
    body.tokenId,
    body.model,
    body.channelId ?? '',
    body.promptTokens,
    body.completionTokens,
    body.cachedTokens,
    body.cacheWriteTokens,
    body.reasoningTokens,
    body.source === 'estimated' ? 1 : 0,
    eventId,
    body.costNanoUsd ?? 0,
    body.costNanoUsd === null ? 0 : 1,
  ]);
}

/** The rows of the traffic events among `events` (others are left out). */
export function trafficRows(events: readonly GatewayEvent[]): TrafficRows {
  const requests = new TsvBuffers();
  const usage = new TsvBuffers();
  const touched: TouchedHours = new Map();
  for (const event of events) {
    if (event.type !== 'request.completed' && event.type !== 'usage.recorded') continue;
    const startedAt = Date.parse(event.body.startedAt);
    if (event.type === 'request.completed') requests.add(requestLine(event.body, event.eventId, startedAt));
    else usage.add(usageLine(event.body, event.eventId, startedAt));
    const userId = event.body.userId ?? '';
    let minutes = touched.get(userId);
    if (!minutes) {
      minutes = new Set<number>();
      touched.set(userId, minutes);
    }
    minutes.add(seconds(startedAt) - (seconds(startedAt) % MINUTE_SECONDS));
  }
  return { requests: requests.take(), usage: usage.take(), touched };
}

/** The touched minutes of several batches' rows, together. */
export function touchedOf(batches: readonly TrafficRows[]): TouchedHours {
  const touched: TouchedHours = new Map();
  for (const batch of batches)
    for (const [user, minutes] of batch.touched) {
      const all = touched.get(user);
      if (all) for (const minute of minutes) all.add(minute);
      else touched.set(user, new Set(minutes));
    }
  return touched;
}
