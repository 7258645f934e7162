/**
 * @module test/support/usage-log-filter-scenario
 * The usage log's filters by endpoint, streaming and error type, and each request's cache-write
 * tokens, run against both stores (SQLite and ClickHouse) on the same events, so their answers cannot
 * drift. Nine requests of one user over nine minutes (before the other scenario's range), each a `request.completed` carrying its usage.
 */
import { expect } from 'vitest';
import type { Endpoint, GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import type { LogReader } from './usage-log-scenario.ts';

const base = Date.parse('2026-01-02T10:00:00.000Z');
export const filterScenarioRange = { from: '2026-01-02T09:00:00.000Z', to: '2026-01-02T12:00:00.000Z' };

interface Sent {
  endpoint: Endpoint;
  stream: boolean;
  status: number;
  errorType: string | null;
}

/** In order: index 2 refused by a rate limit, 5 over its budget (no usage), 6 failed in its stream. */
const sent: Sent[] = [
  { endpoint: 'chat.completions', stream: false, status: 200, errorType: null },
  { endpoint: 'messages', stream: true, status: 200, errorType: null },
  { endpoint: 'chat.completions', stream: true, status: 429, errorType: 'rate_limit_error' },
  { endpoint: 'messages', stream: false, status: 200, errorType: null },
  { endpoint: 'responses', stream: true, status: 200, errorType: null },
  { endpoint: 'messages', stream: true, status: 429, errorType: 'budget_exceeded' },
  { endpoint: 'messages', stream: true, status: 200, errorType: 'overloaded_error' },
  { endpoint: 'gemini.generateContent', stream: false, status: 200, errorType: null },
  { endpoint: 'responses', stream: false, status: 200, errorType: null },
];

const idOf = (index: number) => `filter-request-${index}`;
/** Each answered request wrote 100 × its index tokens to the cache, a tenth of them for an hour. */
const writesOf = (index: number) => 100 * index;
const hasUsage = (index: number) => sent[index]!.errorType !== 'budget_exceeded' && sent[index]!.status < 400;

export function filterScenarioEvents(): GatewayEvent[] {
  return sent.map((request, index) =>
    newEvent('request.completed', {
      requestId: idOf(index),
      userId: 'user-f',
      tokenId: 'user-f-key',
      endpoint: request.endpoint,
      modelRequested: 'claude-sonnet-4-5',
      modelServed: 'claude-sonnet-4-5',
      channelId: 'channel-main',
      stream: request.stream,
      status: request.status,
      errorType: request.errorType,
      errorMessage: request.errorType === null ? null : `failed: ${request.errorType}`,
      startedAt: new Date(base + index * 60_000).toISOString(),
      latencyMs: 100,
      firstTokenMs: null,
      clientAborted: false,
      ...(hasUsage(index) && {
        usage: {
          promptTokens: 50 + writesOf(index),
          completionTokens: 7,
          cachedTokens: 5,
          cacheWriteTokens: writesOf(index),
          cacheWrite1hTokens: writesOf(index) / 10,
          reasoningTokens: 0,
          source: 'upstream' as const,
          costNanoUsd: null,
          price: null,
        },
      }),
    }),
  );
}

const ids = (predicate: (request: Sent) => boolean) =>
  sent.flatMap((request, index) => (predicate(request) ? [idOf(index)] : [])).reverse();

export async function checkUsageLogFilters(logs: LogReader): Promise<void> {
  const find = async (filters: Record<string, string>) => {
    const page = await logs({ ...filterScenarioRange, userId: 'user-f', ...filters });
    expect(page.total, JSON.stringify(filters)).toBe(page.items.length);
    return page.items.map((item) => item.request_id);
  };
  expect(await find({})).toEqual(ids(() => true));
  expect(await find({ endpoint: 'messages' })).toEqual(ids((request) => request.endpoint === 'messages'));
  expect(await find({ endpoint: 'gemini.generateContent' })).toEqual([idOf(7)]);
  expect(await find({ endpoint: 'embeddings' })).toEqual([]);
  expect(await find({ streamed: 'true' })).toEqual(ids((request) => request.stream));
  expect(await find({ streamed: 'false' })).toEqual(ids((request) => !request.stream));
  expect(await find({ error_type: 'rate_limit_error' })).toEqual([idOf(2)]);
  // An in-stream failure has its type though its status was 200.
  expect(await find({ error_type: 'overloaded_error' })).toEqual([idOf(6)]);
  expect(await find({ endpoint: 'messages', streamed: 'true', status: 'ok' })).toEqual([idOf(1)]);
  expect(await find({ endpoint: 'messages', streamed: 'true', error_type: 'budget_exceeded' })).toEqual([idOf(5)]);
}

export async function checkCacheWriteTokens(logs: LogReader): Promise<void> {
  const page = await logs({ ...filterScenarioRange, userId: 'user-f' });
  const written = Object.fromEntries(page.items.map((item) => [item.request_id, item.cache_write_tokens]));
  const expected = Object.fromEntries(sent.map((_, index) => [idOf(index), hasUsage(index) ? writesOf(index) : 0]));
  expect(written).toEqual(expected);
  expect(page.items.find((item) => item.request_id === idOf(8))).toMatchObject({
    prompt_tokens: 850,
    cached_tokens: 5,
  });
}
