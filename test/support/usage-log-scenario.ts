/**
 * @module test/support/usage-log-scenario
 * One usage-log scenario run against both stores (SQLite and ClickHouse), so that their answers to
 * the same filters cannot drift: a request found by the gateway's id or the caller's X-Request-Id, a
 * model found by part of its name in any case, the error message beside its type, the attempts and
 * channels tried, the tokens, and the count of every match on the first page.
 */
import { expect } from 'vitest';
import type { ChannelUsage, UsageLogsPage, UsageLogsQuery } from '../../contracts/console-api.ts';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';

export type LogReader = (query: UsageLogsQuery & { userId: string | null }) => Promise<UsageLogsPage>;

const base = Date.parse('2026-03-02T10:00:00.000Z');
export const scenarioRange = { from: '2026-03-02T00:00:00.000Z', to: '2026-03-03T00:00:00.000Z' };

/** Twelve requests of user-a (`claude-sonnet-4-5` every third, the rest `gpt-4o-mini`), one of user-b. */
export function usageLogScenarioEvents(): GatewayEvent[] {
  const events: GatewayEvent[] = [];
  for (let index = 0; index < 13; index++) {
    const userId = index === 12 ? 'user-b' : 'user-a';
    const model = index % 3 === 0 ? 'claude-sonnet-4-5' : 'gpt-4o-mini';
    const requestId = `log-request-${String(index).padStart(2, '0')}`;
    const startedAt = new Date(base + index * 61_000).toISOString();
    const failedOver = index === 4;
    events.push(
      newEvent('request.completed', {
        requestId,
        userId,
        tokenId: `${userId}-key`,
        endpoint: 'chat.completions',
        modelRequested: model,
        modelServed: model,
        channelId: failedOver ? 'channel-backup' : 'channel-main',
        stream: false,
        status: index === 7 ? 400 : 200,
        errorType: index === 7 ? 'invalid_request_error' : null,
        errorMessage: index === 7 ? 'Upstream says: max_tokens is too large' : null,
        startedAt,
        latencyMs: 200 + index,
        firstTokenMs: null,
        clientAborted: false,
        ...(index === 5 && { clientRequestId: 'trace-from-client' }),
        attempts: failedOver
          ? [
              { channelId: 'channel-main', keyIndex: 0, status: 503, error: 'server_error', latencyMs: 40 },
              { channelId: 'channel-backup', keyIndex: 1, status: 200, error: null, latencyMs: 150 },
            ]
          : [{ channelId: 'channel-main', keyIndex: 0, status: index === 7 ? 400 : 200, error: null, latencyMs: 190 }],
      }),
    );
    if (index === 7) continue;
    events.push(
      newEvent('usage.recorded', {
        requestId,
        userId,
        tokenId: `${userId}-key`,
        channelId: 'channel-main',
        model,
        startedAt,
        promptTokens: 100 + index,
        completionTokens: 20,
        cachedTokens: 64,
        cacheWriteTokens: 0,
        reasoningTokens: 8,
        source: 'upstream',
        costNanoUsd: null,
        price: null,
      }),
    );
  }
  return events;
}

export async function checkUsageLogScenario(logs: LogReader): Promise<void> {
  const all = await logs({ ...scenarioRange, userId: null, limit: 5 });
  expect(all.total).toBe(13);
  expect(all.items).toHaveLength(5);
  // Later pages carry no count: the client keeps the first page's.
  const second = await logs({ ...scenarioRange, userId: null, limit: 5, cursor: all.next_cursor! });
  expect(second.total).toBeUndefined();

  const userA = await logs({ ...scenarioRange, userId: 'user-a' });
  expect(userA.total).toBe(12);
  expect(userA.items.every((item) => item.user_id === 'user-a')).toBe(true);

  const byGatewayId = await logs({ ...scenarioRange, userId: null, request_id: 'log-request-03' });
  expect(byGatewayId.items.map((item) => item.request_id)).toEqual(['log-request-03']);
  expect(byGatewayId.total).toBe(1);
  const byClientId = await logs({ ...scenarioRange, userId: 'user-a', request_id: 'trace-from-client' });
  expect(byClientId.items.map((item) => [item.request_id, item.client_request_id])).toEqual([
    ['log-request-05', 'trace-from-client'],
  ]);
  // Another user's request is not found through its id.
  expect((await logs({ ...scenarioRange, userId: 'user-a', request_id: 'log-request-12' })).items).toEqual([]);

  const sonnet = await logs({ ...scenarioRange, userId: null, model: 'SONNET' });
  expect(sonnet.total).toBe(5);
  expect(sonnet.items.every((item) => item.model_requested === 'claude-sonnet-4-5')).toBe(true);

  const failed = await logs({ ...scenarioRange, userId: null, status: 'error' });
  expect(failed.items).toHaveLength(1);
  expect(failed.items[0]).toMatchObject({
    request_id: 'log-request-07',
    status: 400,
    error_type: 'invalid_request_error',
    error_message: 'Upstream says: max_tokens is too large',
  });

  const [failedOver] = (await logs({ ...scenarioRange, userId: null, request_id: 'log-request-04' })).items;
  expect(failedOver).toMatchObject({
    channel_id: 'channel-backup',
    token_id: 'user-a-key',
    prompt_tokens: 104,
    completion_tokens: 20,
    cached_tokens: 64,
    reasoning_tokens: 8,
    latency_ms: 204,
    error_message: null,
    client_request_id: null,
    attempts: [
      { channel_id: 'channel-main', status: 503, error: 'server_error', latency_ms: 40 },
      { channel_id: 'channel-backup', status: 200, error: null, latency_ms: 150 },
    ],
  });
}

export type ChannelUsageReader = (sinceMs: number) => Promise<ChannelUsage[]>;

/** Per channel, the requests it answered last: 12 on the main channel (one failed), one failed over to the backup. */
export async function checkChannelUsageScenario(channelUsage: ChannelUsageReader): Promise<void> {
  const mainLatencies = Array.from({ length: 13 }, (_, index) => 200 + index).filter((_, index) => index !== 4);
  expect(await channelUsage(Date.parse(scenarioRange.from))).toEqual([
    { channel_id: 'channel-backup', calls: 1, errors: 0, average_latency_ms: 204 },
    {
      channel_id: 'channel-main',
      calls: 12,
      errors: 1,
      average_latency_ms: mainLatencies.reduce((sum, value) => sum + value) / 12,
    },
  ]);
  expect(await channelUsage(Date.parse(scenarioRange.to))).toEqual([]);
}
