/**
 * @module test/support/request-events
 * The two traffic events of one plain request (a 200 with upstream usage), for tests of how events are
 * carried rather than what they say.
 */
import type { RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';

const at = new Date('2025-03-01T10:15:00.000Z');

/** `errorMessage` pads the request's event (a long upstream error), for tests of message sizes. */
export function requestEvents(
  requestId: string,
  { tokenId = 't1', errorMessage = null }: { tokenId?: string; errorMessage?: string | null } = {},
): [RequestCompleted, UsageRecorded] {
  return [
    newEvent(
      'request.completed',
      {
        requestId,
        userId: 'u1',
        tokenId,
        endpoint: 'chat.completions',
        modelRequested: 'gpt-4o-mini',
        modelServed: 'gpt-4o-mini',
        channelId: 'c1',
        stream: false,
        status: 200,
        errorType: null,
        errorMessage,
        startedAt: at.toISOString(),
        latencyMs: 12.5,
        firstTokenMs: null,
        clientAborted: false,
      },
      at,
    ),
    newEvent(
      'usage.recorded',
      {
        requestId,
        userId: 'u1',
        tokenId,
        channelId: 'c1',
        model: 'gpt-4o-mini',
        startedAt: at.toISOString(),
        promptTokens: 21,
        completionTokens: 10,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        source: 'upstream',
        costNanoUsd: null,
        price: null,
      },
      at,
    ),
  ];
}
