/**
 * @module test/support/request-events
 * The two traffic events of one plain request (a 200 with upstream usage), and a stored response, for
 * tests of how events are carried and kept rather than what they say.
 */
import type { EventOfType, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
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

const noted = [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'noted' }] }];

/** A stored response of one user turn (`text`) and a short reply, for tests of how turns are kept. */
export function storedResponseEvent(
  responseId: string,
  text: string,
  {
    userId = 'u1',
    at: storedAt = new Date(),
    outputItems = noted,
  }: { userId?: string; at?: Date; outputItems?: Array<Record<string, unknown>> } = {},
): EventOfType<'response.stored'> {
  return newEvent(
    'response.stored',
    {
      responseId,
      userId,
      tokenId: 't1',
      requestId: `r-${responseId}`,
      previousResponseId: null,
      channelId: 'c1',
      channelType: 'openai',
      native: false,
      model: 'gpt-4o-mini',
      status: 'completed',
      createdAt: Math.floor(storedAt.getTime() / 1000),
      usage: { inputTokens: 4, outputTokens: 9 },
      inputItems: [{ type: 'message', role: 'user', content: text }],
      outputItems,
      settings: { id: responseId, object: 'response' },
    },
    storedAt,
  );
}
