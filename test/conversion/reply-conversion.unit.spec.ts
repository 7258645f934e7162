/**
 * Whole (non-streamed) replies converted both ways, fed with the recorded-shape fixtures: content,
 * tool calls, thinking, finish reasons and usage (docs/wire-formats.md §3.3, §3.4, §3.4b).
 */
import { describe, expect, it } from 'vitest';
import {
  anthropicStopReason,
  finishReasonFromAnthropic,
  finishReasonFromOpenAI,
  openAIFinishReason,
} from '../../gateway/providers/conversion/map-stop-reason.ts';
import { providerKinds } from '../../gateway/providers/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { relayInput } from './support/relay-input.ts';

const anthropicForChatCompletions = providerKinds.anthropic.serves['chat.completions']!;
const openAIForMessages = providerKinds.openai.serves.messages!;

const chatRequest = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] };
const messagesRequest = { model: 'gpt-4o-mini', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] };

function asCompletion(fixture: string, request: Record<string, unknown> = chatRequest, thinkingToContent = false) {
  const reading = anthropicForChatCompletions.readResponse(
    loadJsonFixture(fixture).body,
    relayInput(request, { thinkingToContent }),
  );
  return { reading, completion: reading.clientBody as any };
}

function asMessage(fixture: string, thinkingToContent = false) {
  const reading = openAIForMessages.readResponse(
    loadJsonFixture(fixture).body,
    relayInput(messagesRequest, { type: 'openai', thinkingToContent }),
  );
  return { reading, message: reading.clientBody as any };
}

describe('Anthropic reply → Chat Completion', () => {
  it('text: content, one choice at index 0, stop, the dated model, usage', () => {
    const source = loadJsonFixture('anthropic-text').body as any;
    const { completion, reading } = asCompletion('anthropic-text');
    expect(completion).toMatchObject({
      id: `chatcmpl-${source.id}`,
      object: 'chat.completion',
      model: source.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: source.content[0].text, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 14, completion_tokens: 12, total_tokens: 26 },
    });
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(reading.usage).toMatchObject({ promptTokens: 14, completionTokens: 12 });
  });

  it('tool call: null content, tool_calls with JSON arguments, finish tool_calls', () => {
    const { completion } = asCompletion('anthropic-tool-call');
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion.choices[0].message.tool_calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
  });

  it('parallel tool calls: the text and both calls, in order', () => {
    const { completion } = asCompletion('anthropic-parallel-tool-calls');
    const message = completion.choices[0].message;
    expect(message.content).toBe("I'll check the weather in both cities.");
    expect(message.tool_calls.map((call: any) => JSON.parse(call.function.arguments).city)).toEqual([
      'Paris',
      'London',
    ]);
  });

  it('pitfall 15: prompt = input + cache read + cache creation, cached tokens a subset, no double count', () => {
    const { completion, reading } = asCompletion('anthropic-tool-result-reply');
    expect(completion.usage).toEqual({
      prompt_tokens: 31 + 1734,
      completion_tokens: 19,
      total_tokens: 31 + 1734 + 19,
      prompt_tokens_details: { cached_tokens: 1734 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(reading.usage).toMatchObject({ promptTokens: 1765, cachedTokens: 1734, cacheWriteTokens: 0 });
  });

  it('thinking: reasoning_content, and thinking_blocks with the signature for the next turn', () => {
    const source = loadJsonFixture('anthropic-thinking').body as any;
    const { completion } = asCompletion('anthropic-thinking');
    expect(completion.choices[0].message).toMatchObject({
      content: '17 × 23 = 391.',
      reasoning_content: source.content[0].thinking,
      thinking_blocks: [
        { type: 'thinking', thinking: source.content[0].thinking, signature: source.content[0].signature },
      ],
    });
  });

  it('pitfall 12: redacted thinking is kept in thinking_blocks, so the client can send it back unchanged', () => {
    const body = {
      ...(loadJsonFixture('anthropic-thinking').body as any),
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
        { type: 'text', text: '391' },
      ],
    };
    const completion = anthropicForChatCompletions.readResponse(body, relayInput(chatRequest)).clientBody as any;
    expect(completion.choices[0].message.thinking_blocks).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
    ]);
  });

  it('thinking_to_content: <think>…</think> then the answer, and no reasoning field', () => {
    const source = loadJsonFixture('anthropic-thinking').body as any;
    const { completion } = asCompletion('anthropic-thinking', chatRequest, true);
    const message = completion.choices[0].message;
    expect(message.content).toBe(`<think>\n${source.content[0].thinking}\n</think>\n17 × 23 = 391.`);
    expect(message.reasoning_content).toBeUndefined();
    expect(message.thinking_blocks).toBeUndefined();
  });

  it('response_format: the answer tool call comes back as JSON content with finish_reason stop', () => {
    const request = {
      ...chatRequest,
      response_format: { type: 'json_schema', json_schema: { name: 'get_weather', schema: { type: 'object' } } },
    };
    const { completion } = asCompletion('anthropic-tool-call', request);
    expect(completion.choices[0].message.content).toBe('{"city":"Paris"}');
    expect(completion.choices[0].message.tool_calls).toBeUndefined();
    expect(completion.choices[0].finish_reason).toBe('stop');
  });
});

describe('Chat Completion → Anthropic message', () => {
  it('text: one text block, end_turn, msg_ id, the dated model, usage', () => {
    const source = loadJsonFixture('openai-text').body as any;
    const { message } = asMessage('openai-text');
    expect(message).toEqual({
      id: `msg_${source.id}`,
      type: 'message',
      role: 'assistant',
      model: source.model,
      content: [{ type: 'text', text: source.choices[0].message.content }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 21, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('tool call: a tool_use block with the parsed input, stop_reason tool_use, no empty text block', () => {
    const { message } = asMessage('openai-tool-call');
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_Qm3vT8kXy2LpN7sR4wZ9bD1f', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('parallel tool calls: two tool_use blocks in order', () => {
    const { message } = asMessage('openai-parallel-tool-calls');
    expect(message.content.map((block: any) => block.input.city)).toEqual(['Paris', 'London']);
  });

  it('pitfall 15: input_tokens = prompt - cached, so the three Anthropic fields add up to the prompt', () => {
    const { message } = asMessage('openai-tool-result-reply');
    expect(message.usage).toEqual({
      input_tokens: 1342 - 1152,
      output_tokens: 14,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1152,
    });
  });

  it('reasoning_content: a thinking block (empty signature) before the text', () => {
    const source = loadJsonFixture('openai-thinking').body as any;
    const { message } = asMessage('openai-thinking');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: source.choices[0].message.reasoning_content, signature: '' },
      { type: 'text', text: '17 × 23 = 391.' },
    ]);
  });

  it('thinking_to_content: one text block, <think>…</think> then the answer', () => {
    const source = loadJsonFixture('openai-thinking').body as any;
    const { message } = asMessage('openai-thinking', true);
    expect(message.content).toEqual([
      { type: 'text', text: `<think>\n${source.choices[0].message.reasoning_content}\n</think>\n17 × 23 = 391.` },
    ]);
  });

  it('an upstream without usage gets a tokenizer count; the reading leaves usage null so the relay marks it estimated', () => {
    const body = { ...(loadJsonFixture('openai-text').body as any), usage: undefined };
    const reading = openAIForMessages.readResponse(body, relayInput(messagesRequest, { type: 'openai' }));
    expect(reading.usage).toBeNull();
    expect(reading.completionText).toBe('Hello! How can I help you today?');
    expect((reading.clientBody as any).usage.output_tokens).toBe(9);
    expect((reading.clientBody as any).usage.input_tokens).toBeGreaterThan(0);
  });
});

describe('stop reasons (docs/wire-formats.md §3.3)', () => {
  it('maps every Anthropic stop_reason to its finish_reason', () => {
    const table = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      max_tokens: 'length',
      tool_use: 'tool_calls',
      pause_turn: 'stop',
      refusal: 'content_filter',
      model_context_window_exceeded: 'length',
    };
    for (const [stopReason, finishReason] of Object.entries(table)) {
      expect(openAIFinishReason(finishReasonFromAnthropic(stopReason), false)).toBe(finishReason);
    }
  });

  it('maps every OpenAI finish_reason to its stop_reason, unknown and null to end_turn', () => {
    const table = {
      stop: 'end_turn',
      length: 'max_tokens',
      tool_calls: 'tool_use',
      function_call: 'tool_use',
      content_filter: 'refusal',
      surprise: 'end_turn',
    };
    for (const [finishReason, stopReason] of Object.entries(table)) {
      expect(anthropicStopReason(finishReasonFromOpenAI(finishReason), false)).toBe(stopReason);
    }
    expect(anthropicStopReason(finishReasonFromOpenAI(null), false)).toBe('end_turn');
  });

  it('pitfall 6: a reply with a tool call ends for the tool, unless it was cut off', () => {
    expect(anthropicStopReason('stop', true)).toBe('tool_use');
    expect(openAIFinishReason('stop', true)).toBe('tool_calls');
    expect(anthropicStopReason('length', true)).toBe('max_tokens');
  });
});
