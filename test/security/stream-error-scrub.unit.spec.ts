/**
 * Every stream relay a provider builds (same format, same format with thinking folded into the text,
 * and both conversions) takes the channel's keys out of an upstream's in-stream error event, in the
 * frame the client gets and in the outcome the request is recorded with; an error whose message or
 * type is not a string is recorded with the gateway's own words rather than breaking the record.
 */
import { describe, expect, it } from 'vitest';
import { anthropicProvider } from '../../gateway/providers/anthropic/index.ts';
import { providerKinds } from '../../gateway/providers/index.ts';
import { openAIProvider } from '../../gateway/providers/openai/index.ts';
import type { Provider, RelayInput, SseEvent } from '../../gateway/providers/provider.ts';
import { relayInput } from '../conversion/support/relay-input.ts';

const anthropicForChatCompletions = providerKinds.anthropic.serves['chat.completions']!;
const openAIForMessages = providerKinds.openai.serves.messages!;

const KEYS = ['pool-key-one-Hq3Zt8Wm2Vx6', 'pool-key-two-Jr4Au9Xn3Wy7'];

function input(type: 'openai' | 'anthropic', thinkingToContent: boolean): RelayInput {
  const base = relayInput(
    { model: 'm', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    {
      type,
      thinkingToContent,
    },
  );
  return { ...base, route: { ...base.route, channel: { ...base.route.channel, apiKey: KEYS[1]!, apiKeys: KEYS } } };
}

const openAIError = (message: unknown): SseEvent => ({
  data: JSON.stringify({ error: { message, type: 'server_error' } }),
});
const anthropicError = (message: unknown): SseEvent => ({
  event: 'error',
  data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } }),
});

/** Each relay a provider can build, with the error event its upstream would send. */
const relays: Array<[string, Provider, 'openai' | 'anthropic', boolean, (message: unknown) => SseEvent]> = [
  ['OpenAI, same format', openAIProvider, 'openai', false, openAIError],
  ['OpenAI, thinking to content', openAIProvider, 'openai', true, openAIError],
  ['Anthropic, same format', anthropicProvider, 'anthropic', false, anthropicError],
  ['Anthropic, thinking to content', anthropicProvider, 'anthropic', true, anthropicError],
  ['OpenAI channel for /v1/messages', openAIForMessages, 'openai', false, openAIError],
  ['Anthropic channel for /v1/chat/completions', anthropicForChatCompletions, 'anthropic', false, anthropicError],
];

describe('in-stream error events', () => {
  it.each(relays)('%s: no key in the frame or the outcome', (_, provider, type, thinking, errorEvent) => {
    const relay = provider.createStreamRelay({ hideUsageChunk: false, input: input(type, thinking) });
    const frames = relay.onEvent(errorEvent(`denied: Authorization: Bearer ${KEYS[1]} (pool ${KEYS[0]})`));
    for (const key of KEYS) expect(frames).not.toContain(key);
    expect(frames).toContain('[redacted]');
    const error = relay.outcome().error!;
    expect(error.message).toContain('[redacted]');
    for (const key of KEYS) expect(error.message).not.toContain(key);
  });

  it.each(relays)(
    '%s: a message that is not a string is recorded as the gateway words it',
    (_, provider, type, thinking, errorEvent) => {
      const relay = provider.createStreamRelay({ hideUsageChunk: false, input: input(type, thinking) });
      relay.onEvent(errorEvent({ leaked: KEYS[0] }));
      const error = relay.outcome().error!;
      expect(typeof error.message).toBe('string');
      expect(typeof error.type).toBe('string');
      expect(error.message).not.toContain(KEYS[0]);
    },
  );

  it('Anthropic, same format: an error event that is not JSON is scrubbed as text', () => {
    const relay = anthropicProvider.createStreamRelay({ hideUsageChunk: false, input: input('anthropic', false) });
    const frames = relay.onEvent({ event: 'error', data: `proxy refused x-api-key ${KEYS[0]}` });
    expect(frames).toBe('event: error\ndata: proxy refused x-api-key [redacted]\n\n');
  });
});
