/**
 * Streams converted both ways, one upstream event at a time, fed with the recorded-shape fixtures and
 * checked against every rule the official clients enforce (docs/wire-formats.md TL;DR, §3.6, §3.8, §4).
 */
import { describe, expect, it } from 'vitest';
import { providerKinds } from '../../gateway/providers/index.ts';
import type { SseEvent, StreamRelay } from '../../gateway/providers/provider.ts';
import type { CountedStreamOutcome } from '../../gateway/providers/provider-extensions.ts';
import { loadJsonFixture, parseStreamChunks } from '../fake-upstream/fixtures.ts';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import { relayInput } from './support/relay-input.ts';
import { fixtureEvents, parseFrames, runRelay } from './support/sse.ts';

const anthropicForChatCompletions = providerKinds.anthropic.serves['chat.completions']!;
const openAIForMessages = providerKinds.openai.serves.messages!;

const chatRequest = { model: 'claude-sonnet-4-5', stream: true, messages: [{ role: 'user', content: 'Hi' }] };
const messagesRequest = {
  model: 'gpt-4o-mini',
  max_tokens: 256,
  stream: true,
  messages: [{ role: 'user', content: 'Hi' }],
};

function chatRelay(includeUsage: boolean, request: Record<string, unknown> = chatRequest, thinkingToContent = false) {
  return anthropicForChatCompletions.createStreamRelay({
    hideUsageChunk: !includeUsage,
    input: relayInput(request, { thinkingToContent }),
  });
}

function messagesRelay(thinkingToContent = false) {
  return openAIForMessages.createStreamRelay({
    hideUsageChunk: false,
    input: relayInput(messagesRequest, { type: 'openai', thinkingToContent }),
  });
}

function toChat(events: readonly SseEvent[], includeUsage: boolean, relay: StreamRelay = chatRelay(includeUsage)) {
  const { violations, completion } = checkOpenAIStream(parseFrames(runRelay(relay, events)), { includeUsage });
  return { violations, completion, outcome: relay.outcome() as CountedStreamOutcome };
}

function toMessages(events: readonly SseEvent[], relay: StreamRelay = messagesRelay()) {
  const { violations, result } = checkAnthropicStream(parseFrames(runRelay(relay, events)));
  return { violations, result, outcome: relay.outcome() as CountedStreamOutcome };
}

const anthropicEvents = (...payloads: object[]): SseEvent[] =>
  payloads.map((payload) => ({ event: (payload as { type: string }).type, data: JSON.stringify(payload) }));
const openAIEvents = (...chunks: Array<object | '[DONE]'>): SseEvent[] =>
  chunks.map((chunk) => ({ data: chunk === '[DONE]' ? chunk : JSON.stringify(chunk) }));
const chunk = (delta: object, finishReason: string | null = null, extra: object = {}) => ({
  id: 'chatcmpl-x',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-x',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
  ...extra,
});

describe('Anthropic stream → OpenAI chunks', () => {
  const cases = ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'thinking'];

  for (const includeUsage of [true, false]) {
    for (const name of cases) {
      it(`${name}, include_usage ${includeUsage}: keeps every chunk rule and adds up to the reply`, () => {
        const { violations, completion, outcome } = toChat(fixtureEvents(`anthropic-${name}-stream`), includeUsage);
        expect(violations).toEqual([]);
        const reply = loadJsonFixture(`anthropic-${name}`).body as any;
        const text = reply.content.filter((block: any) => block.type === 'text').map((block: any) => block.text);
        expect(completion.content).toBe(text.join(''));
        const tools = reply.content.filter((block: any) => block.type === 'tool_use');
        expect(completion.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual(
          tools.map((block: any) => [block.name, block.input]),
        );
        const finalUsage = (parseStreamChunks(`anthropic-${name}-stream`).at(-2) as any).usage;
        const prompt =
          finalUsage.input_tokens + finalUsage.cache_read_input_tokens + finalUsage.cache_creation_input_tokens;
        expect(outcome.usage).toMatchObject({ promptTokens: prompt, completionTokens: finalUsage.output_tokens });
        expect(outcome.usageEstimated).toBe(false);
        if (includeUsage)
          expect(completion.usage).toMatchObject({
            prompt_tokens: prompt,
            completion_tokens: finalUsage.output_tokens,
          });
      });
    }
  }

  it('pitfall 1: tool calls are numbered 0, 1 although text took block 0', () => {
    const frames = parseFrames(runRelay(chatRelay(false), fixtureEvents('anthropic-parallel-tool-calls-stream')));
    const indexes = frames
      .map((frame) => JSON.parse(frame.data === '[DONE]' ? '{}' : frame.data).choices?.[0]?.delta?.tool_calls ?? [])
      .flatMap((calls: any[]) => calls.map((call) => call.index));
    expect(new Set(indexes)).toEqual(new Set([0, 1]));
    expect(indexes[0]).toBe(0);
  });

  it('thinking becomes reasoning_content deltas, and the signature is not sent', () => {
    const { completion } = toChat(fixtureEvents('anthropic-thinking-stream'), false);
    expect(completion.reasoning).toBe((loadJsonFixture('anthropic-thinking').body as any).content[0].thinking);
    expect(JSON.stringify(completion)).not.toContain('EqQBCkgI');
  });

  it('converts each event as it arrives: a text delta is written by the call that reads it', () => {
    const relay = chatRelay(false);
    const events = fixtureEvents('anthropic-text-stream');
    expect(relay.onEvent(events[0]!)).toContain('"role":"assistant"');
    relay.onEvent(events[1]!);
    relay.onEvent(events[2]!);
    expect(relay.onEvent(events[3]!)).toContain('"content":"Hello! How"');
    expect(relay.sawContent).toBe(true);
  });

  it('a tool call that streams no input still gets "{}" as its arguments', () => {
    const { violations, completion } = toChat(
      anthropicEvents(
        {
          type: 'message_start',
          message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } },
        },
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'now', input: {} },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 7 } },
        { type: 'message_stop' },
      ),
      false,
    );
    expect(violations).toEqual([]);
    expect(completion.toolCalls).toEqual([{ id: 'toolu_1', name: 'now', arguments: '{}' }]);
  });

  it('an error event after the first bytes becomes an OpenAI error frame, and nothing follows it', () => {
    const relay = chatRelay(true);
    const { violations, completion, outcome } = toChat(fixtureEvents('anthropic-midstream-error'), true, relay);
    expect(violations).toEqual([]);
    expect(completion.content).toBe('Once upon a time');
    expect(completion.error).toEqual({
      message: 'Overloaded',
      type: 'service_unavailable_error',
      param: null,
      code: null,
    });
    expect(outcome.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
    // What was used so far: exact input tokens, output counted with the tokenizer.
    expect(outcome.usage).toMatchObject({ promptTokens: 18, completionTokens: 4 });
    expect(outcome.usageEstimated).toBe(true);
  });

  it('a stream cut before message_delta ends with an error frame rather than a silent stop', () => {
    const events = fixtureEvents('anthropic-text-stream').slice(0, 5);
    const { completion } = toChat(events, false);
    expect(completion.error?.message).toMatch(/ended the stream before the reply was complete/);
  });
});

describe('OpenAI stream → Anthropic events', () => {
  const cases = ['text', 'tool-call', 'parallel-tool-calls', 'tool-result-reply', 'thinking'];

  for (const name of cases) {
    it(`${name}: keeps every event rule and adds up to the reply`, () => {
      const { violations, result, outcome } = toMessages(fixtureEvents(`openai-${name}-stream`));
      expect(violations).toEqual([]);
      const message = (loadJsonFixture(`openai-${name}`).body as any).choices[0].message;
      const text = result.content.filter((block) => block.type === 'text').map((block) => block.text);
      expect(text.join('')).toBe(message.content ?? '');
      const tools = result.content.filter((block) => block.type === 'tool_use');
      expect(tools.map((block) => [block.name, block.input])).toEqual(
        (message.tool_calls ?? []).map((call: any) => [call.function.name, JSON.parse(call.function.arguments)]),
      );
      expect(result.stopReason).toBe(tools.length ? 'tool_use' : 'end_turn');
      const usage = (parseStreamChunks(`openai-${name}-stream`).at(-1) as any).usage;
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      expect(result.usage).toMatchObject({
        input_tokens: usage.prompt_tokens - cached,
        output_tokens: usage.completion_tokens,
        cache_read_input_tokens: cached,
      });
      expect(outcome.usageEstimated).toBe(false);
    });
  }

  it('pitfalls 3, 4, 5: reasoning gets its own thinking block 0, the answer a text block 1, one message_start', () => {
    const frames = parseFrames(runRelay(messagesRelay(), fixtureEvents('openai-thinking-stream')));
    expect(frames.filter((frame) => frame.event === 'message_start')).toHaveLength(1);
    const starts = frames
      .filter((frame) => frame.event === 'content_block_start')
      .map((frame) => JSON.parse(frame.data))
      .map((event) => [event.index, event.content_block]);
    expect(starts).toEqual([
      [0, { type: 'thinking', thinking: '', signature: '' }],
      [1, { type: 'text', text: '' }],
    ]);
    const { result } = checkAnthropicStream(frames);
    const reasoning = parseStreamChunks('openai-thinking-stream')
      .map((payload: any) => payload.choices[0]?.delta.reasoning_content ?? '')
      .join('');
    expect(result.content[0]!.thinking).toBe(reasoning);
  });

  it('pitfall 6: no empty text block from content "" or null; tool_use stop reason', () => {
    const { result } = toMessages(fixtureEvents('openai-tool-call-stream'));
    expect(result.content.map((block) => block.type)).toEqual(['tool_use']);
    expect(result.stopReason).toBe('tool_use');
    const text = toMessages(fixtureEvents('openai-text-stream')).result;
    expect(text.content).toHaveLength(1);
  });

  it('pitfall 7: a chunk carrying text, a tool call and the finish reason loses none of them', () => {
    const { violations, result } = toMessages(
      openAIEvents(
        chunk({ role: 'assistant', content: 'Let me check.' }),
        chunk(
          {
            content: ' Now.',
            tool_calls: [
              {
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
              },
            ],
          },
          'tool_calls',
        ),
        '[DONE]',
      ),
    );
    expect(violations).toEqual([]);
    expect(result.content).toEqual([
      { type: 'text', text: 'Let me check. Now.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('interleaved tool calls: the first streams, the other is held and sent whole, even a fragment after the finish', () => {
    const call = (index: number, fragment: string, start?: { id: string; name: string }) => ({
      index,
      ...(start ? { id: start.id, type: 'function' } : {}),
      function: { ...(start ? { name: start.name } : {}), arguments: fragment },
    });
    const relay = messagesRelay();
    const frames = runRelay(
      relay,
      openAIEvents(
        chunk({ role: 'assistant', tool_calls: [call(0, '', { id: 'call_a', name: 'get_weather' })] }),
        chunk({ tool_calls: [call(1, '{"tz":', { id: 'call_b', name: 'get_time' })] }),
        chunk({ tool_calls: [call(0, '{"city":'), call(1, '"CET"}')] }),
        chunk({ content: 'Checking both.' }),
        chunk({}, 'tool_calls'),
        chunk({ tool_calls: [call(0, '"Oslo"}')] }),
        '[DONE]',
      ),
    );
    const { violations, result } = checkAnthropicStream(parseFrames(frames));
    expect(violations).toEqual([]);
    expect(result.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'call_b', name: 'get_time', input: { tz: 'CET' } },
      { type: 'text', text: 'Checking both.' },
    ]);
    expect(result.stopReason).toBe('tool_use');
  });

  it('pitfall 11 and 17: repeated ids and names start no new block; invalid id characters are replaced', () => {
    const repeated = { index: 0, id: 'functions.get_weather:0', type: 'function' };
    const { violations, result } = toMessages(
      openAIEvents(
        chunk({
          role: 'assistant',
          tool_calls: [{ ...repeated, function: { name: 'get_weather', arguments: '{"ci' } }],
        }),
        chunk({ tool_calls: [{ ...repeated, function: { name: 'get_weather', arguments: 'ty":"Oslo"}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    );
    expect(violations).toEqual([]);
    expect(result.content).toEqual([
      { type: 'tool_use', id: 'functions_get_weather_0', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('an upstream that sends no usage gets a tokenizer count, in message_delta and marked estimated', () => {
    const events = fixtureEvents('openai-text-stream').filter((event) => !event.data.includes('"usage":{'));
    const { violations, result, outcome } = toMessages(events);
    expect(violations).toEqual([]);
    expect(result.usage?.output_tokens).toBe(9);
    expect(outcome.usageEstimated).toBe(true);
    expect(outcome.usage?.completionTokens).toBe(9);
  });

  it('an upstream that ends after its finish reason but without [DONE] still gets message_delta and message_stop', () => {
    const events = fixtureEvents('openai-text-stream').slice(0, -1);
    expect(toMessages(events).violations).toEqual([]);
  });

  it('an error chunk after the first bytes becomes an error event, and nothing follows it', () => {
    const { violations, result, outcome } = toMessages(fixtureEvents('openai-midstream-error'));
    expect(violations).toEqual([]);
    expect(result.error).toEqual({
      type: 'api_error',
      message: 'The server had an error while processing your request. Sorry about that!',
    });
    expect(outcome.error?.type).toBe('api_error');
    expect(outcome.usage?.completionTokens).toBe(4);
  });
});
