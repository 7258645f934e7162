import { describe, expect, it } from 'vitest';
import { parseStreamChunks } from '../../../test/fake-upstream/fixtures.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import { GeminiStreamReader } from './read-stream.ts';

function readAll(events: unknown[]): { parts: ReplyPart[]; reader: GeminiStreamReader } {
  const reader = new GeminiStreamReader();
  const parts = events.flatMap((event) => reader.read({ data: JSON.stringify(event) }));
  return { parts, reader };
}

describe('Gemini stream → neutral reply parts', () => {
  it('text deltas, one finish, and the last usage reported', () => {
    const { parts } = readAll(parseStreamChunks('gemini-text-stream'));
    expect(parts).toEqual([
      { type: 'start', id: 'wnsmaKy3Fv_Vz7IPu_zD4Q4', model: 'gemini-2.5-flash', usage: null },
      { type: 'text-delta', text: 'Hello!' },
      { type: 'text-delta', text: ' How can I help you today?' },
      { type: 'finish', reason: 'stop', stopSequence: null },
      {
        type: 'usage',
        usage: { promptTokens: 33, completionTokens: 34, cachedTokens: 12, cacheWriteTokens: 0, reasoningTokens: 24 },
        estimated: false,
      },
    ]);
  });

  it('a function call is one start and its whole arguments, finishing as tool-calls', () => {
    const { parts } = readAll(parseStreamChunks('gemini-tool-call-stream'));
    expect(parts.slice(1, 4)).toEqual([
      { type: 'tool-call-start', toolIndex: 0, id: 'call_23smaPfgBfPVz7IP_7ai4Ao_0', name: 'get_weather' },
      { type: 'tool-call-delta', toolIndex: 0, arguments: '{"city":"Paris"}' },
      { type: 'finish', reason: 'tool-calls', stopSequence: null },
    ]);
  });

  it('thought parts stream as reasoning, signed once with the signature of the part after them', () => {
    const { parts } = readAll(parseStreamChunks('gemini-thinking-stream'));
    expect(parts.slice(1, 6)).toEqual([
      { type: 'reasoning-delta', text: '**Working out the sum**\n\nThe user asks for 2 + 2' },
      { type: 'reasoning-delta', text: ', which is 4.\n' },
      { type: 'reasoning-signature', signature: 'gemini-next:CrUBAVSoXO7zm3Lf3rH1jLhQ0nDk8vdtHhBwb2eCw6lJ4qDk' },
      { type: 'text-delta', text: '2 + 2 = 4.' },
      { type: 'finish', reason: 'stop', stopSequence: null },
    ]);
  });

  it('an error after the 200 is an error part in Anthropic’s vocabulary', () => {
    const { parts } = readAll(parseStreamChunks('gemini-midstream-error'));
    expect(parts.at(-1)).toEqual({
      type: 'error',
      errorType: 'overloaded_error',
      message: 'The model is overloaded. Please try again later.',
    });
  });

  it('hostile usage is refused and left out, so the relay counts', () => {
    const { parts, reader } = readAll([
      {
        candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: -5 },
      },
    ]);
    expect(parts.some((part) => part.type === 'usage')).toBe(false);
    expect(reader.usageRefused).toContain('promptTokenCount was -5');
  });

  it('ends the reply with an error at an event that is not JSON, and ignores an empty one', () => {
    expect(new GeminiStreamReader().read({ data: 'not json' })).toEqual([
      expect.objectContaining({ type: 'error', errorType: 'api_error' }),
    ]);
    expect(new GeminiStreamReader().read({ data: ' ' })).toEqual([]);
  });
});
