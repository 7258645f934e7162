/**
 * An `azure` channel through the gateway, with the official `openai` client: chat completions,
 * embeddings and responses (native and converted), streamed and not, with tools, against the fake
 * upstream's recorded Azure shapes. Asserts where each request went (the deployment, the api-version,
 * the key as `api-key`), that same-format replies come back untouched, what usage was recorded, and
 * how Azure's content filter and rate limits reach the client.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultAzureApiVersion } from '../../contracts/azure/channel-settings.ts';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_AZURE } from '../support/gateway-harness.ts';

let harness: Harness;
let openai: OpenAI;
let admin: ConsoleClient;
let published: GatewayEvent[];

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [
      {
        name: 'azure-chat',
        type: 'azure',
        models: ['gpt-4o', 'text-embedding-3-small'],
        modelMapping: { 'gpt-4o': 'gpt-4o-prod', 'text-embedding-3-small': 'embeddings-prod' },
      },
      {
        name: 'azure-responses',
        type: 'azure',
        models: ['gpt-4.1'],
        apiVersion: '2025-04-01-preview',
        responsesApi: true,
      },
    ],
    environment: { ADMIN_EMAIL: 'azure-admin@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'azure-admin@example.com', password: 'admin-password-1' });
  const key = (await admin.createToken('azure tests')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  const publisher = harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    // what the projections apply: a request's usage as a usage.recorded of its own
    published.push(...trafficFacts(events));
    publish(...events);
  };
});
afterAll(async () => harness.stop());
beforeEach(() => {
  harness.upstream.reset();
  published = [];
});

async function recorded(type: 'usage.recorded' | 'request.completed'): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const event = published.find((candidate) => candidate.type === type);
    if (event) return event.body as Record<string, any>;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${type} not recorded in time`);
}

const sent = () => harness.upstream.requests[0]!;
const hello = [{ role: 'user' as const, content: 'Hello' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('chat completions on an azure channel', () => {
  it("goes to the mapped deployment with the default api-version and the key as api-key; the reply's bytes come back", async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello });
    expect(sent().path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    expect(sent().search).toBe(`?api-version=${defaultAzureApiVersion}`);
    expect(sent().headers['api-key']).toBe(UPSTREAM_KEY_AZURE);
    expect(sent().headers['authorization']).toBeUndefined();
    expect(completion).toEqual(loadJsonFixture('azure-text').body);
    expect(await recorded('usage.recorded')).toMatchObject({
      promptTokens: 19,
      completionTokens: 12,
      source: 'upstream',
    });
    expect(await recorded('request.completed')).toMatchObject({ endpoint: 'chat.completions', status: 200 });
  });

  it('streams, Azure prompt-filter chunk and all, and records the usage it asked for', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello, stream: true });
    let text = '';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('Hello from Azure! How can I help you today?');
    expect((sent().body as Record<string, unknown>)['stream_options']).toEqual({ include_usage: true });
    // The client did not ask for the usage chunk: it is hidden, as on openai channels.
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(await recorded('usage.recorded')).toMatchObject({
      promptTokens: 20,
      completionTokens: 13,
      source: 'upstream',
    });
  });

  it('calls tools, streamed and not', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello, tools: [weatherTool] });
    expect(completion.choices[0]!.message.tool_calls![0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
    const stream = openai.chat.completions.stream({ model: 'gpt-4o', messages: hello, tools: [weatherTool] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls![0]).toMatchObject({
      id: 'call_Az9mN3bV6cX1zL4kJ7hG2fD5',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    });
  });

  it('passes a filtered completion through with finish_reason content_filter and its filter results', async () => {
    harness.upstream.next('content-filter');
    const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello });
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect((completion.choices[0] as unknown as Record<string, any>)['content_filter_results'].violence).toEqual({
      filtered: true,
      severity: 'medium',
    });
  });

  it('streams a filtered completion through, ending with finish_reason content_filter', async () => {
    harness.upstream.next('content-filter');
    const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: hello, stream: true });
    const reasons: Array<string | null> = [];
    let text = '';
    for await (const chunk of stream) {
      for (const choice of chunk.choices) reasons.push(choice.finish_reason);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('The story goes');
    expect(reasons.filter(Boolean)).toEqual(['content_filter']);
    expect(await recorded('usage.recorded')).toMatchObject({ promptTokens: 27, completionTokens: 3 });
  });

  it('answers a prompt the filter refused with 400 content_filter naming the categories, the key unseen', async () => {
    harness.upstream.next('error-content-filter');
    const error = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe('content_filter');
    expect(error.param).toBe('prompt');
    expect(error.message).toContain("Azure's content filter flagged the prompt: hate (high), violence (medium).");
    expect(JSON.stringify(error.error)).not.toContain(UPSTREAM_KEY_AZURE);
    expect(await recorded('request.completed')).toMatchObject({ status: 400 });
  });

  it("answers Azure's missing deployment as a 404 in its words, and a refused key as the channel's fault", async () => {
    harness.upstream.next('error-deployment-not-found');
    const missing = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof OpenAI.NotFoundError>;
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.message).toContain('The API deployment for this resource does not exist.');
    harness.upstream.next('error-401');
    const refused = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused.status).toBe(502);
    expect(refused.message).toContain("refused this channel's credentials (HTTP 401)");
  });

  it("answers Azure's 429 as a rate limit with its retry-after and retry-after-ms", async () => {
    harness.upstream.next('error-429');
    const error = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('7');
    expect(error.headers?.get('retry-after-ms')).toBe('6350');
    harness.upstream.next('error-429-ms');
    const onlyMilliseconds = (await openai.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((caught) => caught)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(onlyMilliseconds.headers?.get('retry-after')).toBe('3');
  });
});

describe('embeddings on an azure channel', () => {
  it('go to the embeddings deployment; the vectors and their usage come back', async () => {
    const reply = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(sent().path).toBe('/openai/deployments/embeddings-prod/embeddings');
    expect(sent().search).toBe(`?api-version=${defaultAzureApiVersion}`);
    expect(sent().headers['api-key']).toBe(UPSTREAM_KEY_AZURE);
    expect(reply.data).toHaveLength(2);
    expect(reply.data[0]!.embedding).toHaveLength(8);
    expect(await recorded('usage.recorded')).toMatchObject({ completionTokens: 0, source: 'upstream' });
  });
});

describe('responses on azure channels', () => {
  it("with responses_api: relayed as is to Azure's v1 Responses route, its bytes back", async () => {
    const request = { model: 'gpt-4.1', input: 'Hello', tools: [{ type: 'web_search' as const }] };
    harness.upstream.next('text');
    const response = await openai.responses.create(request);
    expect(sent().path).toBe('/openai/v1/responses');
    expect(sent().search).toBe('');
    expect(sent().headers['api-key']).toBe(UPSTREAM_KEY_AZURE);
    expect(sent().body).toEqual(request);
    const { output_text: _added, ...received } = response;
    expect(received).toEqual(loadJsonFixture('openai-responses-text').body);
    expect(await recorded('usage.recorded')).toMatchObject({ promptTokens: 37, completionTokens: 11 });
  });

  it('with responses_api, streamed: the events go through and response.completed gives the usage', async () => {
    const stream = openai.responses.stream({ model: 'gpt-4.1', input: 'Hello' });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello! How can I help you today?');
    expect(sent().path).toBe('/openai/v1/responses');
  });

  it('without responses_api: converted to chat completions on the deployment, streamed and not, with tools', async () => {
    const response = await openai.responses.create({ model: 'gpt-4o', input: 'Hello' });
    expect(sent().path).toBe('/openai/deployments/gpt-4o-prod/chat/completions');
    expect(response.output_text).toBe('Hello from Azure! How can I help you today?');
    expect(response.usage).toMatchObject({ input_tokens: 19, output_tokens: 12 });
    harness.upstream.reset();
    const stream = openai.responses.stream({ model: 'gpt-4o', input: 'Hello' });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello from Azure! How can I help you today?');
    // The converted stream starts from Azure's first real chunk, not its prompt-filter chunk.
    expect(final.model).toBe('gpt-4o-2024-11-20');
    const withTools = await openai.responses.create({
      model: 'gpt-4o',
      input: 'Weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters, strict: false }],
    });
    expect(withTools.output[0]).toMatchObject({
      type: 'function_call',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
  });

  it('without responses_api, a filtered completion is an incomplete response (content_filter)', async () => {
    harness.upstream.next('content-filter');
    const response = await openai.responses.create({ model: 'gpt-4o', input: 'Hello' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'content_filter' });
  });
});

describe('azure channels in the console', () => {
  it('shows the api_version and never the key, and the channel test reaches the deployment', async () => {
    const { body } = await admin.call('GET', '/api/channels');
    const responses = body.items.find((channel: { name: string }) => channel.name === 'azure-responses');
    expect(responses).toMatchObject({ type: 'azure', api_version: '2025-04-01-preview' });
    expect(JSON.stringify(body)).not.toContain(UPSTREAM_KEY_AZURE);
    const tested = await admin.call('POST', `/api/channels/${responses.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: true, status: 200 });
    expect(sent().path).toBe('/openai/deployments/gpt-4.1/chat/completions');
    expect(sent().search).toBe('?api-version=2025-04-01-preview');
    expect(sent().headers['api-key']).toBe(UPSTREAM_KEY_AZURE);
  });

  it('adds an azure channel with an api_version, and refuses api_version on another kind or a bad one', async () => {
    const base = {
      type: 'azure',
      base_url: 'https://contoso.openai.azure.com',
      api_key: 'k-0123456789',
      models: ['m'],
    };
    const created = await admin.call('POST', '/api/channels', {
      ...base,
      name: 'azure-console',
      api_version: '2024-06-01',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'azure', api_version: '2024-06-01' });
    const cleared = await admin.call('PATCH', `/api/channels/${created.body.id}`, { api_version: null });
    expect(cleared.body.api_version).toBeUndefined();
    const openaiKind = await admin.call('POST', '/api/channels', {
      ...base,
      name: 'not-azure',
      type: 'openai',
      api_version: '2024-06-01',
    });
    expect(openaiKind.status).toBe(400);
    const badVersion = await admin.call('POST', '/api/channels', {
      ...base,
      name: 'bad-version',
      api_version: 'latest&x=1',
    });
    expect(badVersion.status).toBe(400);
    const toOpenAI = await admin.call('PATCH', `/api/channels/${created.body.id}`, {
      api_version: '2024-06-01',
      type: 'openai',
    });
    expect(toOpenAI.status).toBe(400);
    await admin.call('PATCH', `/api/channels/${created.body.id}`, { api_version: '2024-06-01' });
    const nowOpenAI = await admin.call('PATCH', `/api/channels/${created.body.id}`, { type: 'openai' });
    expect(nowOpenAI.body).toMatchObject({ type: 'openai' });
    expect(nowOpenAI.body.api_version).toBeUndefined();
  });
});
