/**
 * The official `@anthropic-ai/sdk` client against the gateway in front of an Anthropic-format fake
 * upstream: replies, the stream helper, tools, images, headers passed through, and errors.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_ANTHROPIC } from '../support/gateway-harness.ts';

let harness: Harness;
let anthropic: Anthropic;
let key: string;
const model = 'claude-sonnet-4-5';
const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'Say hello' }];

beforeAll(async () => {
  harness = await startHarness();
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('messages-user@example.com');
  key = (await console.createToken('messages tests')).key;
  anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

async function raw(body: unknown, headers: Record<string, string> = { 'x-api-key': key }) {
  const response = await fetch(`${harness.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('POST /v1/messages, relayed to an anthropic channel', () => {
  it('answers with the upstream message, model as the upstream named it, upstream key sent as x-api-key', async () => {
    const message = await anthropic.messages.create({ model, max_tokens: 256, messages: hello });
    const expected = loadJsonFixture('anthropic-text').body as any;
    expect(message.model).toBe(expected.model);
    expect(message.content).toEqual(expected.content);
    expect(message.usage.input_tokens).toBe(expected.usage.input_tokens);
    const sent = harness.upstream.requests[0]!;
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY_ANTHROPIC);
    expect(JSON.stringify(sent.headers)).not.toContain(key);
  });

  it('accepts the key as x-api-key as well as a bearer token', async () => {
    const response = await raw({ model, max_tokens: 64, messages: hello });
    expect(response.status).toBe(200);
    expect(response.body.type).toBe('message');
  });

  it('streams through messages.stream().finalMessage()', async () => {
    const events: string[] = [];
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages: hello });
    stream.on('streamEvent', (event) => events.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toHaveLength(1);
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(final.usage.output_tokens).toBe(13);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
  });

  it('relays a tool use round trip', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Current weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await anthropic.messages.create({ model, max_tokens: 512, messages, tools });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use')!;
    expect(toolUse.input).toEqual({ city: 'Paris' });
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C, sunny' }] },
    );
    const second = await anthropic.messages.create({ model, max_tokens: 512, messages, tools });
    expect(second.stop_reason).toBe('end_turn');
    expect((harness.upstream.requests[1]!.body as any).messages.at(-1).content[0].tool_use_id).toBe(toolUse.id);
  });

  it('relays an image block', async () => {
    const message = await anthropic.messages.create({
      model,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect((harness.upstream.requests[0]!.body as any).messages[0].content[0].source.data).toBe('iVBORw0KGgo=');
  });

  it('passes an unknown anthropic-version through instead of refusing it, and fills a missing max_tokens', async () => {
    const response = await raw(
      { model, messages: hello },
      { 'x-api-key': key, 'anthropic-version': '2031-01-01', 'anthropic-beta': 'future-feature-1' },
    );
    expect(response.status).toBe(200);
    const sent = harness.upstream.requests[0]!;
    expect(sent.headers['anthropic-version']).toBe('2031-01-01');
    expect(sent.headers['anthropic-beta']).toBe('future-feature-1');
    expect((sent.body as any).max_tokens).toBe(4096);
  });
});

describe('errors on /v1/messages, in the Anthropic shape', () => {
  it.each([
    // Anthropic's own ranges and roles are an Anthropic channel's to judge (forward-compat.int.spec.ts);
    // a converted channel reads the whole contract, and refuses what breaks it.
    [{ model: 'gpt-4o-mini', max_tokens: 10, messages: hello, temperature: 1.5 }, /temperature: must be at most 1/],
    [
      { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'critic', content: 'x' }] },
      /messages\[0\]\.role: must be one of "user", "assistant", "system"/,
    ],
    [{ model, max_tokens: 0, messages: hello }, /max_tokens: must be at least 1/],
    [{ max_tokens: 10, messages: hello }, /model: is required/],
  ])('400 invalid_request_error for %j', async (body, rule) => {
    const response = await raw(body);
    expect(response.status).toBe(400);
    expect(response.body.type).toBe('error');
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.body.error.message).toMatch(rule);
  });

  it('400 for malformed JSON', async () => {
    const response = await raw('{"model":');
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_request_error');
  });

  it('401 authentication_error for a missing or wrong key', async () => {
    expect((await raw({ model, messages: hello }, {})).body.error.type).toBe('authentication_error');
    const stranger = new Anthropic({ baseURL: harness.baseUrl, apiKey: 'sk-wrong', maxRetries: 0 });
    const error = await stranger.messages.create({ model, max_tokens: 10, messages: hello }).catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('404 not_found_error for a model no channel serves', async () => {
    const error = await anthropic.messages
      .create({ model: 'claude-nope', max_tokens: 10, messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.error.error.type).toBe('not_found_error');
  });

  it.each([
    ['error-429', 429, 'rate_limit_error'],
    ['error-529', 503, 'overloaded_error'],
    ['error-500', 502, 'api_error'],
  ])('upstream %s becomes %i %s', async (fixture, status, type) => {
    harness.upstream.next(fixture);
    const error = await anthropic.messages.create({ model, max_tokens: 10, messages: hello }).catch((caught) => caught);
    expect(error.status).toBe(status);
    expect(error.error.error.type).toBe(type);
    expect(error.error.error.message).toContain(
      (loadJsonFixture(`anthropic-${fixture}`).body as any).error.message.slice(0, 20),
    );
  });

  it('an upstream error mid-stream reaches the SDK as an error event', async () => {
    harness.upstream.next('midstream-error');
    const error = await anthropic.messages
      .stream({ model, max_tokens: 10, messages: hello })
      .finalMessage()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(String(error.message)).toMatch(/overloaded/i);
  });
});
