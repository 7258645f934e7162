import { describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../../../test/fake-upstream/fixtures.ts';
import { readGeminiReply } from './read-reply.ts';

const fixture = (name: string) => loadJsonFixture(name).body as Parameters<typeof readGeminiReply>[0];

describe('Gemini reply → neutral reply', () => {
  it('text, id, model and usage (thoughts counted as completion and reasoning)', () => {
    expect(readGeminiReply(fixture('gemini-text'))).toEqual({
      id: 'vXsmaNCGB9HVz7IPoMvQyQ4',
      model: 'gemini-2.5-flash',
      blocks: [{ type: 'text', text: 'Hello! How can I help you today?' }],
      finishReason: 'stop',
      stopSequence: null,
      usage: { promptTokens: 31, completionTokens: 32, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 23 },
    });
  });

  it('a function call ends the turn as tool-calls, with an id and its signature before it', () => {
    const reply = readGeminiReply(fixture('gemini-tool-call'));
    expect(reply.blocks).toEqual([
      { type: 'reasoning', text: '', signature: 'gemini-next:CiIBVKhc7oDDaOuX4hCxMZ8QdyTZT0oPhoFOGfEF3Z5Ww9mX' },
      { type: 'tool-call', id: 'call_1XsmaOimKNfVz7IPnuyB6Ao_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(reply.finishReason).toBe('tool-calls');
  });

  it('thought parts are reasoning; the signature of the part after them rides on them', () => {
    const reply = readGeminiReply(fixture('gemini-thinking'));
    expect(reply.blocks).toEqual([
      {
        type: 'reasoning',
        text: '**Working out the sum**\n\nThe user asks for 2 + 2, which is 4.\n',
        signature: 'gemini-next:CrUBAVSoXO5VNHkBhdMZp6h0ob2iIdwRyPQw3TPl6Y8MOx5mZ0xH',
      },
      { type: 'text', text: '2 + 2 = 4.' },
    ]);
    expect(reply.usage?.reasoningTokens).toBe(99);
  });

  it('a signed thought run keeps its own signature', () => {
    const reply = readGeminiReply({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Thinking', thought: true },
              { text: '', thought: true, thoughtSignature: 'S' },
              { text: 'A' },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 1 },
    });
    expect(reply.blocks).toEqual([
      { type: 'reasoning', text: 'Thinking', signature: 'gemini:S' },
      { type: 'text', text: 'A' },
    ]);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['OTHER', 'stop'],
    ['SOMETHING_NEW', 'stop'],
  ])('finish reason %s is %s', (finishReason, expected) => {
    expect(readGeminiReply({ candidates: [{ finishReason }] }).finishReason).toBe(expected);
  });

  it('a blocked prompt is a reply ended by the content filter', () => {
    const reply = readGeminiReply({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 8 },
    });
    expect(reply.blocks).toEqual([]);
    expect(reply.finishReason).toBe('content-filter');
    expect(reply.usage?.promptTokens).toBe(8);
  });

  it('hostile parts and usage are read as nothing, with the refusal said', () => {
    const reply = readGeminiReply({
      candidates: [{ content: { parts: [null, { text: 7 }, { functionCall: 'x' }] as never } }],
      usageMetadata: { promptTokenCount: Number.MAX_VALUE },
    });
    expect(reply.blocks).toEqual([]);
    expect(reply.usage).toBeNull();
    expect(reply.usageRefused).toContain('promptTokenCount');
  });
});
