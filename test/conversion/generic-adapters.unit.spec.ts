/**
 * The generic converting adapters serve any kind: a kind defined only here (its own request body, reply
 * and stream shapes) is reached through chat completions and messages ingress, whole and streamed, with
 * nothing but its `UpstreamKind` entry; the registry derives what it serves.
 */
import { describe, expect, it } from 'vitest';
import { messagesRequestSchema } from '../../contracts/anthropic/messages-request.ts';
import type { ChannelType } from '../../contracts/channel-type.ts';
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import { chatCompletionRequestSchema } from '../../contracts/openai/chat-request.ts';
import { anthropicProvider } from '../../gateway/providers/anthropic/index.ts';
import { chatCompletionsOn } from '../../gateway/providers/chat-completions/chat-completions-providers.ts';
import type { ReplyPart } from '../../gateway/providers/conversion/reply.ts';
import { providerKinds, servesOf, type UpstreamKind } from '../../gateway/providers/index.ts';
import { messagesOn } from '../../gateway/providers/messages/messages-providers.ts';
import { openAIProvider } from '../../gateway/providers/openai/index.ts';
import type { Provider } from '../../gateway/providers/provider.ts';
import { warningsOf } from '../../gateway/providers/provider-extensions.ts';
import { relayInput } from './support/relay-input.ts';
import { parseFrames, runRelay } from './support/sse.ts';

const usage = { promptTokens: 7, completionTokens: 2, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/** An upstream that takes the neutral request as its body and answers `{ said }`, or streams `{ delta }` events. */
const fakeKind: UpstreamKind = {
  label: 'Fake',
  writeRequest: (request) => ({
    body: { wire: 'fake', request },
    warnings: request.sampling.topK === undefined ? [] : ['top_k dropped: no Fake equivalent'],
    answerTool: null,
  }),
  readReply: (body) => ({
    id: 'fake-1',
    model: 'fake-model',
    blocks: [{ type: 'text', text: (body as { said: string }).said }],
    finishReason: 'stop',
    stopSequence: null,
    usage,
  }),
  createStreamReader: () => ({
    read(event): ReplyPart[] {
      const { delta } = JSON.parse(event.data) as { delta: string | null };
      if (delta === null)
        return [
          { type: 'finish', reason: 'stop', stopSequence: null },
          { type: 'usage', usage, estimated: false },
          { type: 'end' },
        ];
      return delta === 'start'
        ? [{ type: 'start', id: 'fake-1', model: 'fake-model', usage: null }]
        : [{ type: 'text-delta', text: delta }];
    },
  }),
  buildRequest: ({ route, body }) => ({
    upstream: {
      url: `${route.channel.baseUrl}/fake`,
      headers: { 'x-fake-key': route.channel.apiKey },
      body: JSON.stringify(body),
    },
    hideUsageChunk: false,
  }),
  testRequest: (model) => ({ model }),
  capabilities: { signedThinking: false, nativeResponses: false },
};

const streamed = ['start', 'Hel', 'lo', null].map((delta) => ({ data: JSON.stringify({ delta }) }));

function sent(provider: Provider, body: Record<string, unknown>) {
  const built = provider.buildRequest(relayInput(body));
  const upstream = JSON.parse(built.upstream.body) as { wire: string; request: NeutralRequest };
  return { built, upstream };
}

describe('chat completions ingress on a kind defined only in this test', () => {
  const provider = chatCompletionsOn(fakeKind, 'Fake');
  const body = chatCompletionRequestSchema.parse({
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    seed: 4,
    stream_options: { include_usage: true },
  });

  it("reaches the kind's writer with the neutral request, and names what was dropped after the kind", () => {
    const { built, upstream } = sent(provider, body);
    expect(built.upstream.url).toBe('http://upstream.test/fake');
    expect(upstream.wire).toBe('fake');
    expect(upstream.request).toMatchObject({
      system: ['Be brief.'],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    });
    expect(warningsOf(built)).toEqual(['seed dropped: no Fake equivalent']);
    expect(built.hideUsageChunk).toBe(false);
  });

  it("answers with a Chat Completion read by the kind's reader", () => {
    const reading = provider.readResponse({ said: 'Hello' }, relayInput(body));
    expect(reading.usage).toEqual(usage);
    expect(reading.clientBody).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 2 },
    });
  });

  it('streams chat completion chunks, the usage chunk as asked, then [DONE]', () => {
    const relay = provider.createStreamRelay({ hideUsageChunk: false, input: relayInput(body) });
    const frames = parseFrames(runRelay(relay, streamed)).map((frame) => frame.data);
    expect(frames.at(-1)).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Hello');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7 } });
  });
});

describe('messages ingress on a kind defined only in this test', () => {
  const provider = messagesOn(fakeKind, 'Fake');
  const body = messagesRequestSchema.parse({
    model: 'fake-model',
    max_tokens: 100,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    top_k: 3,
    service_tier: 'auto',
  });

  it("reaches the kind's writer with the neutral request, cache breakpoints kept", () => {
    const { built, upstream } = sent(provider, body);
    expect(upstream.request).toMatchObject({
      system: ['Be brief.'],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi', cache: {} }] }],
      sampling: { maxOutputTokens: 100, topK: 3 },
    });
    expect(warningsOf(built)).toEqual([
      'service_tier dropped: no Fake equivalent',
      'top_k dropped: no Fake equivalent',
    ]);
  });

  it('answers with an Anthropic message, and streams Anthropic events', () => {
    const reading = provider.readResponse({ said: 'Hello' }, relayInput(body));
    expect(reading.clientBody).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 7, output_tokens: 2 },
    });
    const relay = provider.createStreamRelay({ hideUsageChunk: true, input: relayInput(body) });
    const events = parseFrames(runRelay(relay, streamed));
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});

describe("a kind's in-stream error, in each client's vocabulary", () => {
  /** A reader that passes on the upstream's own error word, as a Gemini reader might. */
  const erring: UpstreamKind = {
    ...fakeKind,
    createStreamReader: () => ({
      read: (): ReplyPart[] => [{ type: 'error', errorType: 'RESOURCE_EXHAUSTED', message: 'quota' }],
    }),
  };
  const errorOf = (provider: Provider, body: Record<string, unknown>) => {
    const relay = provider.createStreamRelay({ hideUsageChunk: true, input: relayInput(body) });
    const frames = parseFrames(runRelay(relay, [{ data: '{}' }]));
    return JSON.parse(frames.at(-1)!.data).error;
  };

  it('an unknown type is an api_error to Anthropic clients and a server_error to OpenAI clients', () => {
    const messages = messagesRequestSchema.parse({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    const chat = chatCompletionRequestSchema.parse({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    expect(errorOf(messagesOn(erring, 'Fake'), messages)).toEqual({ type: 'api_error', message: 'quota' });
    expect(errorOf(chatCompletionsOn(erring, 'Fake'), chat)).toMatchObject({ type: 'server_error', message: 'quota' });
  });
});

describe('a kind whose replies name no model (as Bedrock Converse)', () => {
  const nameless: UpstreamKind = {
    ...fakeKind,
    readReply: (body) => ({ ...fakeKind.readReply(body), model: '' }),
    createStreamReader: () => {
      const reader = fakeKind.createStreamReader();
      return {
        read: (event) => reader.read(event).map((part) => (part.type === 'start' ? { ...part, model: '' } : part)),
      };
    },
  };
  const chat = chatCompletionRequestSchema.parse({ model: 'asked-model', messages: [{ role: 'user', content: 'Hi' }] });
  const messages = messagesRequestSchema.parse({ model: 'asked-model', messages: [{ role: 'user', content: 'Hi' }] });

  it('answers with the model that was asked of it, whole and streamed, in both formats', () => {
    const chatProvider = chatCompletionsOn(nameless, 'Fake');
    expect(chatProvider.readResponse({ said: 'Hello' }, relayInput(chat)).clientBody).toMatchObject({
      model: 'asked-model',
    });
    const chatRelay = chatProvider.createStreamRelay({ hideUsageChunk: false, input: relayInput(chat) });
    const chunk = JSON.parse(parseFrames(runRelay(chatRelay, streamed))[0]!.data);
    expect(chunk.model).toBe('asked-model');
    expect(chatRelay.outcome().model).toBe('asked-model');

    const messagesProvider = messagesOn(nameless, 'Fake');
    expect(messagesProvider.readResponse({ said: 'Hello' }, relayInput(messages)).clientBody).toMatchObject({
      model: 'asked-model',
    });
    const messagesRelay = messagesProvider.createStreamRelay({ hideUsageChunk: true, input: relayInput(messages) });
    const start = JSON.parse(parseFrames(runRelay(messagesRelay, streamed))[0]!.data);
    expect(start.message.model).toBe('asked-model');
  });
});

describe('the registry', () => {
  it('keeps the same-format hot path: the pass-through providers themselves, no neutral round trip', () => {
    expect(providerKinds.openai.serves['chat.completions']).toBe(openAIProvider);
    expect(providerKinds.anthropic.serves.messages).toBe(anthropicProvider);
  });

  it('derives every ingress for any kind: converting adapters, and the pass-through the kind declares', () => {
    const served = servesOf('fake' as ChannelType, fakeKind);
    expect(Object.keys(served).sort()).toEqual([
      'chat.completions',
      'gemini.generateContent',
      'messages',
      'responses',
      'responses.compact',
    ]);
    const withPassThrough = servesOf('fake' as ChannelType, {
      ...fakeKind,
      passThrough: { 'chat.completions': openAIProvider },
    });
    expect(withPassThrough['chat.completions']).toBe(openAIProvider);
    expect(withPassThrough.messages).not.toBe(openAIProvider);
  });
});
