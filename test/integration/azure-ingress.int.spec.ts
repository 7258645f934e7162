/**
 * `/v1/messages` on an `azure` channel with the official `@anthropic-ai/sdk` client: the Anthropic
 * request reaches the deployment as Chat Completions, and the client gets Anthropic's shapes back,
 * whole and streamed, tools included; Azure's content filter reaches it as `stop_reason: "refusal"`
 * (a filtered completion) or a 400 `invalid_request_error` (a refused prompt). The raw stream is
 * checked against the rules the SDKs and Claude Code rely on.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkAnthropicStream } from '../conversion/support/anthropic-stream-rules.ts';
import { readFrames } from '../conversion/support/read-frames.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_AZURE } from '../support/gateway-harness.ts';

let harness: Harness;
let anthropic: Anthropic;
let key: string;
const model = 'claude-on-azure';
const hello: Anthropic.MessageParam[] = [{ role: 'user', content: 'Say hello' }];
const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [
      { name: 'azure-messages', type: 'azure', models: [model], modelMapping: { [model]: 'gpt-4o-prod' } },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('azure-messages@example.com');
  key = (await console.createToken('azure messages')).key;
  anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

const sent = () => harness.upstream.requests[0]!;

async function rawStream(body: Record<string, unknown>) {
  const response = await fetch(`${harness.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 64, stream: true, ...body }),
  });
  return checkAnthropicStream(await readFrames(response));
}

describe('messages on an azure channel', () => {
  it('sends Chat Completions to the deployment with api-key, and answers a message with its usage', async () => {
    const message = await anthropic.messages.create({ model, max_tokens: 256, system: 'Be brief.', messages: hello });
    expect(sent().path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    expect(sent().headers['api-key']).toBe(UPSTREAM_KEY_AZURE);
    expect(sent().body).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_tokens: 256,
    });
    const expected = loadJsonFixture('azure-text').body as any;
    expect(message.content).toEqual([{ type: 'text', text: expected.choices[0].message.content }]);
    expect(message.model).toBe(expected.model);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 19, output_tokens: 12 });
  });

  it('streams a message whose id and model come from the first real chunk, not the prompt-filter chunk', async () => {
    const stream = anthropic.messages.stream({ model, max_tokens: 64, messages: hello });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Azure! How can I help you today?' }]);
    expect(final.model).toBe('gpt-4o-2024-11-20');
    expect(final.id).toBe('msg_chatcmpl-CTrAz4Ed9rT2yU5iO8pA1sD4fG7hJ');
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 13 });
    const { violations } = await rawStream({ messages: hello });
    expect(violations).toEqual([]);
  });

  it('uses tools, streamed and not', async () => {
    const message = await anthropic.messages.create({ model, max_tokens: 64, messages: hello, tools });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_Az7kP2mQ9xW4nR6tY1vB3cD8', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    const final = await anthropic.messages.stream({ model, max_tokens: 64, messages: hello, tools }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    const { violations } = await rawStream({ messages: hello, tools });
    expect(violations).toEqual([]);
  });

  it('ends a filtered completion with stop_reason refusal, streamed and not', async () => {
    harness.upstream.next('content-filter');
    const message = await anthropic.messages.create({ model, max_tokens: 64, messages: hello });
    expect(message.stop_reason).toBe('refusal');
    harness.upstream.next('content-filter');
    const final = await anthropic.messages.stream({ model, max_tokens: 64, messages: hello }).finalMessage();
    expect(final.stop_reason).toBe('refusal');
    expect(final.content).toEqual([{ type: 'text', text: 'The story goes' }]);
  });

  it('answers a refused prompt with an invalid_request_error naming the flagged categories', async () => {
    harness.upstream.next('error-content-filter');
    const error = (await anthropic.messages
      .create({ model, max_tokens: 64, messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof Anthropic.BadRequestError>;
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error.error as any).error.type).toBe('invalid_request_error');
    expect((error.error as any).error.message).toContain(
      "Azure's content filter flagged the prompt: hate (high), violence (medium).",
    );
    expect(JSON.stringify(error.error)).not.toContain(UPSTREAM_KEY_AZURE);
  });

  it("answers Azure's 429 as a rate_limit_error with its retry hints", async () => {
    harness.upstream.next('error-429');
    const error = (await anthropic.messages
      .create({ model, max_tokens: 64, messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('7');
    expect(error.headers?.get('retry-after-ms')).toBe('6350');
  });

  it('counts tokens for an azure model with the gateway tokenizer, marked as an estimate', async () => {
    const response = await fetch(`${harness.baseUrl}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, messages: hello }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(harness.upstream.requests).toEqual([]);
  });
});
