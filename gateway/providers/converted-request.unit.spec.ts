/**
 * A converted body is printed once per request, however many attempts send it: each attempt sends
 * the same bytes, with only its own channel's model written in place.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providersFor } from './index.ts';
import type { RelayInput } from './provider.ts';

afterEach(() => vi.restoreAllMocks());

describe('a converted request on a retry', () => {
  const channel = { channelId: 'c1', name: 'openai', type: 'openai', baseUrl: 'http://upstream/v1', apiKey: 'k' };
  const attempt = (upstreamModel: string, body: Record<string, unknown>): RelayInput => ({
    route: { channel, upstreamModel } as unknown as RelayInput['route'],
    body,
    stream: false,
    clientHeaders: {},
  });

  it('sends the identical bytes on every attempt and prints the converted body once', () => {
    const provider = providersFor('messages').openai!;
    const body = {
      model: 'gpt-4o-mini',
      max_tokens: 64,
      tools: [{ name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'Fix the test.' }],
    };
    const stringify = vi.spyOn(JSON, 'stringify');
    const upstreamBodies = () => stringify.mock.calls.filter(([value]) => (value as { messages?: unknown })?.messages);
    const first = provider.buildRequest(attempt('gpt-4o-mini', body)).upstream.body;
    const second = provider.buildRequest(attempt('gpt-4o-mini', body)).upstream.body;
    expect(second).toBe(first);
    expect(upstreamBodies()).toHaveLength(1);
    // Another channel's model name: the same text with only the model written in place.
    const third = provider.buildRequest(attempt('gpt-4.1', body)).upstream.body;
    expect(JSON.parse(third)).toEqual({ ...JSON.parse(first), model: 'gpt-4.1' });
    expect(upstreamBodies()).toHaveLength(1);
  });
});
