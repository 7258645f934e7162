/**
 * An Azure stream answered with something that is not an event stream (`text/plain`, a proxy's HTML
 * page) is refused on its headers, before the client's first byte: the next channel answers the
 * request, and with no other channel the client gets a 502 naming the type, not a 200 that ends in
 * an error.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let openai: OpenAI;
let key: string;

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [
      { name: 'azure-first', type: 'azure', models: ['gpt-4o'], modelMapping: { 'gpt-4o': 'first' }, priority: 10 },
      { name: 'azure-second', type: 'azure', models: ['gpt-4o'], modelMapping: { 'gpt-4o': 'second' }, priority: 1 },
      { name: 'azure-alone', type: 'azure', models: ['gpt-4o-alone'], modelMapping: { 'gpt-4o-alone': 'alone' } },
    ],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('azure-stream-type@example.com');
  key = (await client.createToken('azure stream type')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => harness?.stop());
beforeEach(() => harness.upstream.reset());

const hello = [{ role: 'user' as const, content: 'Hello' }];
const deployments = () => harness.upstream.requests.map((request) => request.path.split('/')[3]);

describe('an azure stream that is not typed text/event-stream', () => {
  it.each(['text/plain; charset=utf-8', 'text/html'])(
    '%s: fails over to the next channel, which answers',
    async (type) => {
      harness.upstream.next({ fixture: 'text', contentType: type });
      const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello from Azure! How can I help you today?');
      expect(deployments()).toEqual(['first', 'second']);
    },
  );

  it('with no other channel: a 502 naming the type, before any byte of a stream', async () => {
    harness.upstream.next({ fixture: 'text', contentType: 'text/plain' });
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-alone', messages: hello, stream: true }),
    });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as { error: { message: string; code: string } };
    expect(body.error.message).toMatch(/text\/plain, not an event stream/);
    expect(body.error.code).toBe('upstream_bad_reply');
  });
});
