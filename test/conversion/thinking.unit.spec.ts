/**
 * Extended thinking: the budget rules, the `-thinking` suffix of /v1/messages, and thinking_to_content
 * on both channel kinds for both endpoints, whole and streamed.
 */
import { describe, expect, it } from 'vitest';
import {
  anthropicThinkingToContentRelay,
  openAIThinkingToContentRelay,
  thinkingToContentCompletion,
  thinkingToContentMessage,
} from '../../gateway/providers/conversion/same-format-thinking.ts';
import { resolveThinkingSuffix, suffixThinkingPlan } from '../../gateway/providers/conversion/thinking.ts';
import { providerKinds } from '../../gateway/providers/index.ts';
import type { StreamRelay } from '../../gateway/providers/provider.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import { relayInput } from './support/relay-input.ts';
import { fixtureEvents, parseFrames, runRelay } from './support/sse.ts';

const anthropicForChatCompletions = providerKinds.anthropic.serves['chat.completions']!;
const openAIForMessages = providerKinds.openai.serves.messages!;

const anthropicThinking = (loadJsonFixture('anthropic-thinking').body as any).content[0].thinking as string;
const openAIThinking = (loadJsonFixture('openai-thinking').body as any).choices[0].message.reasoning_content as string;
const thought = (thinking: string) => `<think>\n${thinking}\n</think>\n17 × 23 = 391.`;

describe('the -thinking suffix', () => {
  const body = { model: 'claude-sonnet-4-5-thinking', messages: [{ role: 'user', content: '17 × 23?' }] };
  const servesNothingSuffixed = () => false;

  it('routes by the id without the suffix and asks for thinking: 80 % of max_tokens, default 4096', () => {
    const resolved = resolveThinkingSuffix(body, servesNothingSuffixed);
    expect(resolved.model).toBe('claude-sonnet-4-5');
    expect(resolved.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 3276 },
    });
  });

  it('pitfall 14: budget within [1024, max_tokens) for any max_tokens, raising max_tokens to 1280 when lower', () => {
    expect(suffixThinkingPlan(100)).toEqual({ maxTokens: 1280, budgetTokens: 1024 });
    expect(suffixThinkingPlan(10_000)).toEqual({ maxTokens: 10_000, budgetTokens: 8000 });
    for (const max of [1, 1024, 1279, 1280, 1281, 2048, 4096, 64_000, undefined]) {
      const plan = suffixThinkingPlan(max);
      expect(plan.budgetTokens).toBeGreaterThanOrEqual(1024);
      expect(plan.budgetTokens).toBeLessThan(plan.maxTokens);
    }
  });

  it('pitfall 13: drops a temperature and relaxes a forced tool choice', () => {
    const resolved = resolveThinkingSuffix(
      { ...body, temperature: 0.2, top_k: 5, tool_choice: { type: 'tool', name: 'get_weather' } },
      servesNothingSuffixed,
    );
    expect(resolved.body['temperature']).toBeUndefined();
    expect(resolved.body['top_k']).toBeUndefined();
    expect(resolved.body['tool_choice']).toEqual({ type: 'auto' });
    expect(resolved.warnings).toHaveLength(3);
  });

  it('leaves a model whose own id ends in -thinking alone, and a client thinking setting wins', () => {
    expect(resolveThinkingSuffix(body, (model) => model === 'claude-sonnet-4-5-thinking')).toEqual({
      model: 'claude-sonnet-4-5-thinking',
      body,
      warnings: [],
    });
    const own = resolveThinkingSuffix(
      { ...body, thinking: { type: 'enabled', budget_tokens: 2000 } },
      servesNothingSuffixed,
    );
    expect(own.body['thinking']).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(own.model).toBe('claude-sonnet-4-5');
  });

  it('pitfall 12: does not turn thinking on to continue a tool loop whose assistant turn has no thinking block', () => {
    const loop = {
      ...body,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    };
    const resolved = resolveThinkingSuffix(loop, servesNothingSuffixed);
    expect(resolved.model).toBe('claude-sonnet-4-5');
    expect(resolved.body['thinking']).toBeUndefined();
    expect(resolved.warnings.join()).toMatch(/carries no thinking block/);
  });
});

describe('thinking_to_content, whole replies', () => {
  it('same format, OpenAI: reasoning_content folded into content, every other field kept', () => {
    const source = loadJsonFixture('openai-thinking').body as any;
    const folded = thinkingToContentCompletion(source) as any;
    expect(folded.choices[0].message).toEqual({ role: 'assistant', content: thought(openAIThinking) });
    expect(folded.usage).toEqual(source.usage);
    expect(folded.system_fingerprint).toBe(source.system_fingerprint);
  });

  it('same format, Anthropic: the thinking block folded into the text block, redacted thinking dropped', () => {
    const source = loadJsonFixture('anthropic-thinking').body as any;
    const folded = thinkingToContentMessage(source) as any;
    expect(folded.content).toEqual([{ type: 'text', text: thought(anthropicThinking) }]);
    expect(folded.usage).toEqual(source.usage);
    const withTool = thinkingToContentMessage({
      content: [
        { type: 'redacted_thinking', data: 'x' },
        { type: 'thinking', thinking: 'Use the tool.', signature: 's' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
      ],
    }) as any;
    expect(withTool.content).toEqual([
      { type: 'text', text: '<think>\nUse the tool.\n</think>\n' },
      { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
    ]);
  });
});

describe('thinking_to_content, streamed', () => {
  const chatBody = { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] };
  const messagesBody = { ...chatBody, max_tokens: 100 };
  const openAIOutputs: Array<[string, () => StreamRelay, string, string]> = [
    [
      'Anthropic upstream → OpenAI client',
      () =>
        anthropicForChatCompletions.createStreamRelay({
          hideUsageChunk: true,
          input: relayInput(chatBody, { thinkingToContent: true }),
        }),
      'anthropic-thinking-stream',
      anthropicThinking,
    ],
    [
      'OpenAI upstream → OpenAI client',
      () => openAIThinkingToContentRelay({ hideUsageChunk: true, clientBody: chatBody, created: 1 }),
      'openai-thinking-stream',
      openAIThinking,
    ],
  ];
  for (const [name, relay, fixture, thinking] of openAIOutputs) {
    it(`${name}: content is <think>…</think> then the answer, no reasoning field`, () => {
      const { violations, completion } = checkOpenAIStream(parseFrames(runRelay(relay(), fixtureEvents(fixture))), {
        includeUsage: false,
      });
      expect(violations).toEqual([]);
      expect(completion.content).toBe(thought(thinking));
      expect(completion.reasoning).toBe('');
    });
  }

  const anthropicOutputs: Array<[string, () => StreamRelay, string, string]> = [
    [
      'OpenAI upstream → Anthropic client',
      () =>
        openAIForMessages.createStreamRelay({
          hideUsageChunk: false,
          input: relayInput(messagesBody, { type: 'openai', thinkingToContent: true }),
        }),
      'openai-thinking-stream',
      openAIThinking,
    ],
    [
      'Anthropic upstream → Anthropic client',
      () => anthropicThinkingToContentRelay(messagesBody),
      'anthropic-thinking-stream',
      anthropicThinking,
    ],
  ];
  for (const [name, relay, fixture, thinking] of anthropicOutputs) {
    it(`${name}: one text block at index 0 with <think>…</think> then the answer`, () => {
      const { violations, result } = checkAnthropicStream(parseFrames(runRelay(relay(), fixtureEvents(fixture))));
      expect(violations).toEqual([]);
      expect(result.content).toEqual([{ type: 'text', text: thought(thinking) }]);
    });
  }

  it('Anthropic → Anthropic: the message keeps its id, model and exact usage', () => {
    const relay = anthropicThinkingToContentRelay(messagesBody);
    const { result } = checkAnthropicStream(parseFrames(runRelay(relay, fixtureEvents('anthropic-thinking-stream'))));
    expect(result.message).toMatchObject({ id: 'msg_01Ne3Ao6Pq1St4Uv7Wy0Zb2e', model: 'claude-sonnet-4-5-20250929' });
    expect(result.usage).toMatchObject({ input_tokens: 48, output_tokens: 322 });
    expect(relay.outcome().usage).toMatchObject({ promptTokens: 48, completionTokens: 322 });
  });
});
