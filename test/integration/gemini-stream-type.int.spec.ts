/**
 * A Gemini stream answered with something that is not an event stream (`text/plain`, a proxy's HTML
 * page, no content type at all) is refused on its headers, before the client's first byte: the next
 * channel answers the request, and with no other channel the client gets a 502 naming the type, not a
 * 200 that ends in an error. The same for a Gemini client's own call, relayed as written.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GeminiUpstream, startGeminiUpstream } from '../fake-upstream/gemini-upstream.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let gemini: GeminiUpstream;
let openai: OpenAI;
let key: string;

beforeAll(async () => {
  gemini = await startGeminiUpstream();
  const channel = (name: string, model: string, upstreamModel: string, priority: number) => ({
    name,
    type: 'gemini' as const,
    baseUrl: gemini.url,
    models: [model],
    modelMapping: { [model]: upstreamModel },
    priority,
  });
  harness = await startHarness({
    extraChannels: [
      channel('gemini-first', 'gemini-2.5-flash', 'first', 10),
      channel('gemini-second', 'gemini-2.5-flash', 'second', 1),
      channel('gemini-alone', 'gemini-alone', 'alone', 1),
    ],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('gemini-stream-type@example.com');
  key = (await client.createToken('gemini stream type')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => {
  await harness?.stop();
  await gemini?.close();
});
beforeEach(() => gemini.reset());

const hello = [{ role: 'user' as const, content: 'Hello' }];
const models = () => gemini.requests.map((request) => request.model);

describe('a gemini stream that is not typed text/event-stream', () => {
  it.each(['text/plain; charset=utf-8', 'text/html', ''])(
    'content type "%s": fails over to the next channel, which answers',
    async (type) => {
      gemini.next({ fixture: 'text', contentType: type });
      const stream = await openai.chat.completions.create({ model: 'gemini-2.5-flash', messages: hello, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text.length).toBeGreaterThan(0);
      expect(models()).toEqual(['first', 'second']);
    },
  );

  it('with no other channel: a 502 naming the type, before any byte of a stream', async () => {
    gemini.next({ fixture: 'text', contentType: 'text/plain' });
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemini-alone', messages: hello, stream: true }),
    });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as { error: { message: string; code: string } };
    expect(body.error.message).toMatch(/text\/plain, not an event stream/);
    expect(body.error.code).toBe('upstream_bad_reply');
  });

  it('a Gemini client’s own stream: a 502 in Google’s error shape, before any byte', async () => {
    gemini.next({ fixture: 'text', contentType: 'text/plain' });
    const response = await fetch(`${harness.baseUrl}/v1beta/models/gemini-alone:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] }),
    });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { message: string; status: string } };
    expect(body.error.message).toMatch(/text\/plain, not an event stream/);
  });
});
