/**
 * Converse replies and ConverseStream events as the neutral reply, from the recorded-shape fixtures:
 * text, tool use, reasoning with its signature, Bedrock's usage (cache tokens added to the prompt),
 * hostile usage refused, and stream exceptions as in-stream errors.
 */
import { describe, expect, it } from 'vitest';
import { bedrockReply, bedrockStreamEvents } from '../../../test/fake-upstream/bedrock-fixtures.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import { readConverseReply } from './read-converse-reply.ts';
import { ConverseStreamReader } from './read-converse-stream.ts';

function streamed(name: string): { parts: ReplyPart[]; reader: ConverseStreamReader } {
  const reader = new ConverseStreamReader();
  const parts = bedrockStreamEvents(name).flatMap((entry) =>
    reader.read({
      event: 'exception' in entry ? entry.exception : entry.event,
      data: JSON.stringify(entry.payload),
    }),
  );
  return { parts, reader };
}

describe('readConverseReply', () => {
  it('reads text, the stop reason and the usage', () => {
    const reply = readConverseReply(bedrockReply('text'));
    expect(reply.blocks).toEqual([{ type: 'text', text: 'Hello! How can I help you today?' }]);
    expect(reply.finishReason).toBe('stop');
    expect(reply.id).toMatch(/^bedrock-[0-9a-f]{32}$/);
    expect(reply.usage).toEqual({
      promptTokens: 13,
      completionTokens: 11,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('reads a tool use with its input as JSON text and tool_use as tool-calls', () => {
    const reply = readConverseReply(bedrockReply('tool-call'));
    expect(reply.blocks[1]).toEqual({
      type: 'tool-call',
      id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(reply.finishReason).toBe('tool-calls');
  });

  it('keeps reasoning with its signature, redacted reasoning, and counts cache tokens in the prompt', () => {
    const fixture = bedrockReply('thinking');
    fixture.output.message.content.push({ reasoningContent: { redactedContent: 'EmwKAhgBEgy3va3pzix' } });
    const reply = readConverseReply(fixture);
    expect(reply.blocks[0]).toEqual({
      type: 'reasoning',
      text: fixture.output.message.content[0].reasoningContent.reasoningText.text,
      signature: fixture.output.message.content[0].reasoningContent.reasoningText.signature,
    });
    expect(reply.blocks[2]).toEqual({ type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va3pzix' });
    expect(reply.usage).toMatchObject({ promptTokens: 47 + 1200 + 55, cachedTokens: 1200, cacheWriteTokens: 55 });
  });

  it('maps every stop reason, unknown ones to stop', () => {
    const reasons = [
      ['max_tokens', 'length'],
      ['stop_sequence', 'stop-sequence'],
      ['guardrail_intervened', 'content-filter'],
      ['content_filtered', 'content-filter'],
      ['model_context_window_exceeded', 'context-exceeded'],
      ['something_new', 'stop'],
      ['constructor', 'stop'],
      ['__proto__', 'stop'],
    ];
    for (const [stopReason, expected] of reasons) {
      expect(readConverseReply({ ...bedrockReply('text'), stopReason }).finishReason).toBe(expected);
    }
  });

  it('refuses hostile usage and says why, and survives a body of the wrong shape', () => {
    const reply = readConverseReply({
      ...bedrockReply('text'),
      usage: { inputTokens: 1e300, outputTokens: 2, totalTokens: 3 },
    });
    expect(reply.usage).toBeNull();
    expect(reply.usageRefused).toMatch(/usage.inputTokens was 1e\+300/);
    const odd = readConverseReply({ output: { message: { content: [null, 7, { toolUse: 'x' }, { text: 5 }] } } });
    expect(odd.blocks).toEqual([]);
    expect(readConverseReply(null).blocks).toEqual([]);
  });
});

describe('ConverseStreamReader', () => {
  it('reads a text stream: start, deltas, finish, usage from metadata, end', () => {
    const { parts } = streamed('text-stream');
    expect(parts.map((part) => part.type)).toEqual([
      'start',
      'text-delta',
      'text-delta',
      'text-delta',
      'finish',
      'usage',
      'end',
    ]);
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.text)
        .join(''),
    ).toBe('Hello! How can I help you today?');
    expect(parts.at(-2)).toMatchObject({
      type: 'usage',
      usage: { promptTokens: 14, completionTokens: 12 },
      estimated: false,
    });
  });

  it('numbers tool calls by their own order and streams their input', () => {
    const { parts } = streamed('tool-call-stream');
    expect(parts).toContainEqual({
      type: 'tool-call-start',
      toolIndex: 0,
      id: 'tooluse_Wq3pXcR4TxKlM0f9VbN2aA',
      name: 'get_weather',
    });
    const input = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.arguments] : [])).join('');
    expect(JSON.parse(input)).toEqual({ city: 'Paris' });
    expect(parts).toContainEqual({ type: 'finish', reason: 'tool-calls', stopSequence: null });
  });

  it('gives a tool that streamed no input {} as its arguments', () => {
    const reader = new ConverseStreamReader();
    reader.read({
      event: 'contentBlockStart',
      data: '{"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"t1","name":"now"}}}',
    });
    expect(reader.read({ event: 'contentBlockStop', data: '{"contentBlockIndex":2}' })).toEqual([
      { type: 'tool-call-delta', toolIndex: 0, arguments: '{}' },
    ]);
  });

  it('streams reasoning and its signature', () => {
    const { parts } = streamed('thinking-stream');
    expect(
      parts
        .filter((part) => part.type === 'reasoning-delta')
        .map((part) => part.text)
        .join(''),
    ).toBe('The user says hello. A short, friendly greeting fits.');
    expect(parts).toContainEqual({
      type: 'reasoning-signature',
      signature: 'ErUBCkgIBhABGAIiQNZ0t4mJ8W6c1bedrockStreamSignatureEXAMPLEz8Kq1Lw3Yx',
    });
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { promptTokens: 48 + 1200 + 55 } });
  });

  it('turns a stream exception into an error part in the neutral vocabulary', () => {
    const { parts } = streamed('midstream-error-stream');
    expect(parts.at(-1)).toEqual({
      type: 'error',
      errorType: 'rate_limit_error',
      message: 'The upstream provider reported throttlingException: Too many tokens, please wait before trying again.',
    });
    const reader = new ConverseStreamReader();
    expect(reader.read({ event: 'internalServerException', data: 'not json' })).toEqual([
      { type: 'error', errorType: 'api_error', message: 'The upstream provider reported internalServerException.' },
    ]);
  });

  it('leaves out refused usage and still ends', () => {
    const reader = new ConverseStreamReader();
    expect(reader.read({ event: 'metadata', data: '{"usage":{"inputTokens":-1,"outputTokens":2}}' })).toEqual([
      { type: 'end' },
    ]);
    expect(reader.usageRefused).toMatch(/inputTokens was -1/);
  });
});
