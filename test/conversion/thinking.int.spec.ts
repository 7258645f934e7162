/**
 * Extended thinking through the gateway: the `-thinking` suffix on /v1/messages for both channel
 * kinds, reasoning_effort on /v1/chat/completions for an anthropic channel, and thinking_to_content on
 * both channel kinds for both endpoints, whole and streamed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { checkAnthropicStream } from './support/anthropic-stream-rules.ts';
import { type ConversionGateway, startConversionGateway } from './support/gateway-clients.ts';
import { checkOpenAIStream } from './support/openai-stream-rules.ts';
import { readFrames } from './support/read-frames.ts';

let gateway: ConversionGateway;
const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is 17 × 23?' }];
const anthropicThinking = (loadJsonFixture('anthropic-thinking').body as any).content[0].thinking as string;
const openAIThinking = (loadJsonFixture('openai-thinking').body as any).choices[0].message.reasoning_content as string;

beforeAll(async () => {
  gateway = await startConversionGateway('thinking@example.com');
});
afterAll(async () => gateway.harness.stop());
beforeEach(() => {
  gateway.harness.upstream.reset();
  gateway.harness.upstream.next('thinking');
});

const sent = () => gateway.harness.upstream.requests[0]!.body as any;

describe('the -thinking suffix on /v1/messages', () => {
  it('anthropic channel: routed without the suffix, thinking enabled below max_tokens, thinking block returned', async () => {
    const message = await gateway.anthropic.messages.create({
      model: 'claude-sonnet-4-5-thinking',
      max_tokens: 2000,
      messages: question,
    });
    expect(sent()).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1600 },
    });
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: anthropicThinking });
    expect(message.content[1]).toMatchObject({ type: 'text', text: '17 × 23 = 391.' });
  });

  it('anthropic channel, streamed: the SDK accumulates the thinking block and its signature', async () => {
    const final = await gateway.anthropic.messages
      .stream({ model: 'claude-sonnet-4-5-thinking', max_tokens: 4096, messages: question })
      .finalMessage();
    const thinking = final.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toBe(anthropicThinking);
    expect(thinking.signature).toMatch(/^EqQB/);
    expect(sent().thinking).toEqual({ type: 'enabled', budget_tokens: 3276 });
  });

  it('openai channel: routed without the suffix as reasoning_effort, reasoning returned as a thinking block', async () => {
    const message = await gateway.anthropic.messages.create({
      model: 'gpt-4o-mini-thinking',
      max_tokens: 4096,
      messages: question,
    });
    expect(sent()).toMatchObject({ model: 'gpt-4o-mini', reasoning_effort: 'medium', max_completion_tokens: 4096 });
    expect(sent().max_tokens).toBeUndefined();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: openAIThinking, signature: '' },
      { type: 'text', text: '17 × 23 = 391.' },
    ]);
  });

  it('openai channel, streamed: thinking deltas arrive in a thinking block the SDK accumulates', async () => {
    const thinkingDeltas: string[] = [];
    const stream = gateway.anthropic.messages.stream({
      model: 'gpt-4o-mini-thinking',
      max_tokens: 4096,
      messages: question,
    });
    stream.on('thinking', (delta) => thinkingDeltas.push(delta));
    const final = await stream.finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(thinkingDeltas.join('')).toBe((final.content[0] as Anthropic.ThinkingBlock).thinking);
    expect((final.content[1] as Anthropic.TextBlock).text).toBe('17 × 23 = 391.');
  });

  it('a key limited to the model may use its -thinking form', async () => {
    const console = new ConsoleClient(gateway.harness.baseUrl);
    await console.register('thinking-limited@example.com');
    const { key } = await console.createToken('limited', { models: ['claude-sonnet-4-5'] });
    const limited = new Anthropic({ baseURL: gateway.harness.baseUrl, apiKey: key, maxRetries: 0 });
    const message = await limited.messages.create({
      model: 'claude-sonnet-4-5-thinking',
      max_tokens: 2000,
      messages: question,
    });
    expect(message.content[0]!.type).toBe('thinking');
  });
});

describe('reasoning_effort on /v1/chat/completions, anthropic channel', () => {
  it('asks for a thinking budget and returns the thinking as reasoning_content', async () => {
    const completion = await gateway.openai.chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'What is 17 × 23?' }],
      reasoning_effort: 'high',
    });
    expect(sent()).toMatchObject({ max_tokens: 4096 + 4096, thinking: { type: 'enabled', budget_tokens: 4096 } });
    const message = completion.choices[0]!.message as any;
    expect(message.content).toBe('17 × 23 = 391.');
    expect(message.reasoning_content).toBe(anthropicThinking);
  });
});

describe('thinking_to_content', () => {
  const thought = (thinking: string) => `<think>\n${thinking}\n</think>\n17 × 23 = 391.`;
  // claude-think is served by an anthropic channel, deepseek-reasoner by an openai one; both fold thinking.
  const channels = [
    ['anthropic', 'claude-think', anthropicThinking],
    ['openai', 'deepseek-reasoner', openAIThinking],
  ] as const;

  for (const [kind, model, thinking] of channels) {
    it(`${kind} channel, /v1/chat/completions, whole and streamed`, async () => {
      const messages = [{ role: 'user' as const, content: 'What is 17 × 23?' }];
      const whole = await gateway.openai.chat.completions.create({ model, messages });
      expect(whole.choices[0]!.message.content).toBe(thought(thinking));
      expect((whole.choices[0]!.message as any).reasoning_content).toBeUndefined();
      gateway.harness.upstream.next('thinking');
      const response = await gateway.post('/v1/chat/completions', { model, messages, stream: true });
      const { violations, completion } = checkOpenAIStream(await readFrames(response), { includeUsage: false });
      expect(violations).toEqual([]);
      expect(completion.content).toBe(thought(thinking));
      expect(completion.reasoning).toBe('');
    });

    it(`${kind} channel, /v1/messages, whole and streamed`, async () => {
      const whole = await gateway.anthropic.messages.create({ model, max_tokens: 2000, messages: question });
      expect(whole.content).toEqual([{ type: 'text', text: thought(thinking) }]);
      gateway.harness.upstream.next('thinking');
      const response = await gateway.post('/v1/messages', {
        model,
        max_tokens: 2000,
        messages: question,
        stream: true,
      });
      const { violations, result } = checkAnthropicStream(await readFrames(response));
      expect(violations).toEqual([]);
      expect(result.content).toEqual([{ type: 'text', text: thought(thinking) }]);
    });
  }
});
