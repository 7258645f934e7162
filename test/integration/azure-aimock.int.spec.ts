/**
 * An `azure` channel pointed at `@copilotkit/aimock`, an independent mock of Azure OpenAI's
 * deployment routes and v1 Responses route, so the gateway's Azure addressing and readers are checked
 * against someone else's idea of the wire format, not only against this project's own fixtures. The
 * official `openai` and `@anthropic-ai/sdk` clients talk to the gateway; aimock's journal says what
 * reached it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { LLMock } from '@copilotkit/aimock';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAzureApiVersion } from '../../contracts/azure/channel-settings.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_AZURE } from '../support/gateway-harness.ts';

let mock: LLMock;
let harness: Harness;
let openai: OpenAI;
let anthropic: Anthropic;

const weather = { name: 'get_weather', arguments: '{"city":"Paris"}' };
const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

beforeAll(async () => {
  // aimock refuses any other key: a request it answers carried the channel's key.
  mock = new LLMock({ port: 0, auth: { apiKeys: [UPSTREAM_KEY_AZURE] } });
  mock.onMessage('weather', { toolCalls: [weather] });
  mock.onMessage('Hello', { content: 'Hi from aimock!' });
  mock.onEmbedding('vectors', { embedding: [0.25, -0.5, 0.75] });
  await mock.start();
  harness = await startHarness({
    extraChannels: [
      {
        name: 'azure-aimock',
        type: 'azure',
        baseUrl: mock.url,
        models: ['gpt-4o', 'text-embedding-3-small'],
        modelMapping: { 'gpt-4o': 'gpt-4o-deployment', 'text-embedding-3-small': 'embedding-deployment' },
      },
      { name: 'azure-aimock-responses', type: 'azure', baseUrl: mock.url, models: ['gpt-4.1'], responsesApi: true },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('azure-aimock@example.com');
  const key = (await console.createToken('azure aimock')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
});
afterAll(async () => {
  await harness?.stop();
  await mock?.stop();
});
beforeEach(() => mock.clearRequests());

const received = () => {
  const entry = mock.getLastRequest()!;
  return { path: entry.path, headers: entry.headers, body: entry.body as Record<string, any> };
};

describe('the openai client through the gateway to aimock as Azure', () => {
  it('chat completions reach the deployment with api-version and api-key', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Hi from aimock!');
    const { path, headers } = received();
    expect(path).toBe(`/openai/deployments/gpt-4o-deployment/chat/completions?api-version=${defaultAzureApiVersion}`);
    // The journal redacts the key's value; that aimock accepted the request says it was the right one.
    expect(headers['api-key']).toBeDefined();
    expect(headers['authorization']).toBeUndefined();
  });

  it('aimock refuses another key, so the answers above prove the channel sent its own', async () => {
    const refused = await fetch(
      `${mock.url}/openai/deployments/gpt-4o-deployment/chat/completions?api-version=${defaultAzureApiVersion}`,
      {
        method: 'POST',
        headers: { 'api-key': 'another-key', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
      },
    );
    expect(refused.status).toBe(401);
  });

  it('streams chat completions', async () => {
    const stream = openai.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Hi from aimock!');
  });

  it('calls tools, streamed and not', async () => {
    const request = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
      tools: [{ type: 'function' as const, function: { name: 'get_weather', parameters: weatherParameters } }],
    };
    const completion = await openai.chat.completions.create(request);
    expect(completion.choices[0]!.message.tool_calls![0]).toMatchObject({ function: weather });
    const final = await openai.chat.completions.stream(request).finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({ function: weather });
  });

  it('embeds on the embeddings deployment', async () => {
    const reply = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'vectors',
      encoding_format: 'float',
    });
    expect(reply.data[0]!.embedding).toEqual([0.25, -0.5, 0.75]);
    expect(received().path).toBe(
      `/openai/deployments/embedding-deployment/embeddings?api-version=${defaultAzureApiVersion}`,
    );
  });

  it('relays responses natively to the v1 route, streamed and not', async () => {
    const response = await openai.responses.create({ model: 'gpt-4.1', input: 'Hello' });
    expect(response.output_text).toBe('Hi from aimock!');
    expect(received().path).toBe('/openai/v1/responses');
    expect(received().body.model).toBe('gpt-4.1');
    const final = await openai.responses.stream({ model: 'gpt-4.1', input: 'Hello' }).finalResponse();
    expect(final.output_text).toBe('Hi from aimock!');
  });

  it('converts responses to chat completions on a channel without responses_api', async () => {
    const response = await openai.responses.create({ model: 'gpt-4o', input: 'Hello' });
    expect(response.output_text).toBe('Hi from aimock!');
    expect(received().path).toContain('/openai/deployments/gpt-4o-deployment/chat/completions');
    const final = await openai.responses.stream({ model: 'gpt-4o', input: 'Hello' }).finalResponse();
    expect(final.output_text).toBe('Hi from aimock!');
  });
});

describe('the Anthropic client through the gateway to aimock as Azure', () => {
  it('gets a message, streamed and not', async () => {
    const message = await anthropic.messages.create({
      model: 'gpt-4o',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hi from aimock!' }]);
    expect(received().path).toContain('/openai/deployments/gpt-4o-deployment/chat/completions');
    const final = await anthropic.messages
      .stream({ model: 'gpt-4o', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hi from aimock!' }]);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('uses tools, streamed and not', async () => {
    const request = {
      model: 'gpt-4o',
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: 'What is the weather in Paris?' }],
      tools: [{ name: 'get_weather', input_schema: weatherParameters as Anthropic.Tool.InputSchema }],
    };
    const message = await anthropic.messages.create(request);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    const final = await anthropic.messages.stream(request).finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
  });
});
