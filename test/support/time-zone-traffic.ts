/**
 * @module test/support/time-zone-traffic
 * The time-zone case: one call at 01:23 in Shanghai on 26 November (17:23 UTC on the
 * 25th), another at 12:00 UTC on the 26th, for a given user and key.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';

export const shanghaiNight = '2026-11-25T17:23:00.000Z';
export const utcNoon = '2026-11-26T12:00:00.000Z';
/** A range holding both calls, as days: 24 to 28 November. */
export const timeZoneRange = { from: '2026-11-23T00:00:00.000Z', to: '2026-11-28T00:00:00.000Z' };

export function timeZoneTraffic(
  userId: string,
  tokenId: string,
  times: readonly string[] = [shanghaiNight, utcNoon],
): GatewayEvent[] {
  return times.flatMap((startedAt, index) => {
    const requestId = `time-zone-${userId}-${index}`;
    return [
      newEvent('request.completed', {
        requestId,
        userId,
        tokenId,
        endpoint: 'chat.completions',
        modelRequested: 'gpt-4o-mini',
        modelServed: 'gpt-4o-mini',
        channelId: 'channel-o',
        stream: false,
        status: 200,
        errorType: null,
        errorMessage: null,
        startedAt,
        latencyMs: 120,
        firstTokenMs: null,
        clientAborted: false,
      }),
      newEvent('usage.recorded', {
        requestId,
        userId,
        tokenId,
        channelId: 'channel-o',
        model: 'gpt-4o-mini',
        startedAt,
        promptTokens: 10 + index,
        completionTokens: 5,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        source: 'upstream',
        costNanoUsd: null,
        price: null,
      }),
    ];
  });
}

/** The day buckets (ISO instants) that hold calls, with their counts. */
export function callsByDay(series: ReadonlyArray<{ bucket: string; calls: number }>): Record<string, number> {
  const days: Record<string, number> = {};
  for (const row of series) days[row.bucket] = (days[row.bucket] ?? 0) + row.calls;
  return days;
}
