import { describe, expect, it } from 'vitest';
import { defaultAzureApiVersion } from '../../../contracts/azure/channel-settings.ts';
import { loadJsonFixture, parseStreamChunks } from '../../../test/fake-upstream/fixtures.ts';
import type { RoutableChannel } from '../../relay/channel-router.ts';
import { providerKinds } from '../index.ts';
import type { RelayInput } from '../provider.ts';
import { deploymentUrl } from './address.ts';
import { azureEmbeddingsProvider, azureForResponses } from './index.ts';
import { AzureStreamReader, isPromptFilterChunk } from './stream-reader.ts';

const channel = (settings: Partial<RoutableChannel> = {}): RoutableChannel => ({
  channelId: 'channel-azure',
  name: 'azure',
  type: 'azure',
  baseUrl: 'https://contoso.openai.azure.com',
  apiKey: 'azure-key-0123456789abcdef',
  priority: 0,
  weight: 1,
  modelMapping: {},
  thinkingToContent: false,
  ...settings,
});

const input = (
  body: Record<string, unknown>,
  settings: Partial<RoutableChannel> = {},
  deployment = 'gpt-4o',
): RelayInput => ({
  route: { channel: channel(settings), upstreamModel: deployment },
  body,
  stream: body['stream'] === true,
  clientHeaders: {},
});

const chat = providerKinds.azure.serves['chat.completions']!;
const azureForMessages = providerKinds.azure.serves.messages!;

describe('azure addressing', () => {
  it('sends chat completions to the deployment with the default GA api-version and the key as api-key', () => {
    const built = chat.buildRequest(input({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }));
    expect(built.upstream.url).toBe(
      `https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=${defaultAzureApiVersion}`,
    );
    expect(defaultAzureApiVersion).toBe('2024-10-21');
    expect(built.upstream.headers).toEqual({
      'api-key': 'azure-key-0123456789abcdef',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(built.upstream.headers['authorization']).toBeUndefined();
  });

  it("takes the channel's api_version and the mapped deployment, encoding names that need it", () => {
    const built = chat.buildRequest(
      input(
        { model: 'gpt-4o', messages: [], stream: true },
        { apiVersion: '2025-04-01-preview' },
        'team a/gpt 4o?x=1#',
      ),
    );
    expect(built.upstream.url).toBe(
      'https://contoso.openai.azure.com/openai/deployments/team%20a%2Fgpt%204o%3Fx%3D1%23/chat/completions?api-version=2025-04-01-preview',
    );
    expect(built.upstream.headers['accept']).toBe('text/event-stream');
    // The OpenAI kind's body: the usage chunk asked for, and hidden from a client that did not ask.
    expect(JSON.parse(built.upstream.body)).toMatchObject({
      model: 'team a/gpt 4o?x=1#',
      stream_options: { include_usage: true },
    });
    expect(built.hideUsageChunk).toBe(true);
    expect(deploymentUrl(channel({ apiVersion: 'a&b=c' }), 'd', 'embeddings')).toContain('?api-version=a%26b%3Dc');
  });

  it('sends embeddings to the deployment', () => {
    const built = azureEmbeddingsProvider.buildRequest(
      input({ model: 'emb', input: 'x' }, {}, 'text-embedding-3-small'),
    );
    expect(built.upstream.url).toBe(
      `https://contoso.openai.azure.com/openai/deployments/text-embedding-3-small/embeddings?api-version=${defaultAzureApiVersion}`,
    );
    expect(built.upstream.headers['api-key']).toBe('azure-key-0123456789abcdef');
    expect(JSON.parse(built.upstream.body)).toEqual({ model: 'text-embedding-3-small', input: 'x' });
  });

  it('relays /v1/responses as is to the v1 surface on responses_api channels, and converts it on the others', () => {
    const body = { model: 'gpt-4o', input: 'Hello', tools: [{ type: 'web_search' }] };
    const native = azureForResponses.buildRequest(input(body, { responsesApi: true }, 'my-deployment'));
    expect(native.upstream.url).toBe('https://contoso.openai.azure.com/openai/v1/responses');
    expect(native.upstream.headers['api-key']).toBe('azure-key-0123456789abcdef');
    expect(JSON.parse(native.upstream.body)).toEqual({ ...body, model: 'my-deployment' });
    const converted = azureForResponses.buildRequest(input({ model: 'gpt-4o', input: 'Hello' }, {}, 'my-deployment'));
    expect(converted.upstream.url).toContain('/openai/deployments/my-deployment/chat/completions?api-version=');
    expect(JSON.parse(converted.upstream.body).messages).toEqual([{ role: 'user', content: 'Hello' }]);
  });

  it('sends /v1/messages converted to Chat Completions to the deployment', () => {
    const built = azureForMessages.buildRequest(
      input({ model: 'claude-like', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(built.upstream.url).toContain('/openai/deployments/gpt-4o/chat/completions?api-version=');
    expect(built.upstream.headers['api-key']).toBe('azure-key-0123456789abcdef');
    expect(JSON.parse(built.upstream.body)).toMatchObject({
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('tests a channel with a one-token request to its deployment', () => {
    const kind = providerKinds.azure;
    const built = kind.buildRequest(input(kind.testRequest('gpt-4o'), { apiVersion: '2024-06-01' }));
    expect(built.upstream.url).toContain('/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01');
    expect(JSON.parse(built.upstream.body)).toMatchObject({ max_tokens: 1 });
  });
});

describe('azure replies', () => {
  it('reads the stream after the prompt-filter chunk: the converted reply keeps its id and model', () => {
    const chunks = parseStreamChunks('azure-text-stream');
    const reader = new AzureStreamReader();
    const parts = chunks.flatMap((chunk) => reader.read({ data: JSON.stringify(chunk) }));
    expect(parts[0]).toEqual({
      type: 'start',
      id: 'chatcmpl-CTrAz4Ed9rT2yU5iO8pA1sD4fG7hJ',
      model: 'gpt-4o-2024-11-20',
      usage: null,
    });
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => (part as { text: string }).text)
        .join(''),
    ).toBe('Hello from Azure! How can I help you today?');
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({
      usage: { promptTokens: 20, completionTokens: 13 },
    });
  });

  it('tells the prompt-filter chunk from chunks that carry choices or usage', () => {
    const [promptChunk, first] = parseStreamChunks('azure-text-stream');
    expect(isPromptFilterChunk(JSON.stringify(promptChunk))).toBe(true);
    expect(isPromptFilterChunk(JSON.stringify(first))).toBe(false);
    expect(isPromptFilterChunk('{"prompt_filter_results":[],"choices":[],"usage":{"prompt_tokens":1}}')).toBe(false);
    expect(isPromptFilterChunk('{"prompt_filter_results": not json')).toBe(false);
  });

  it('ends a filtered completion as a refusal for Anthropic clients', () => {
    const body = loadJsonFixture('azure-content-filter').body;
    const reading = azureForMessages.readResponse(
      body,
      input({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(reading.clientBody).toMatchObject({ type: 'message', stop_reason: 'refusal', content: [] });
    const reader = new AzureStreamReader();
    const parts = parseStreamChunks('azure-content-filter-stream').flatMap((chunk) =>
      reader.read({ data: JSON.stringify(chunk) }),
    );
    expect(parts.find((part) => part.type === 'finish')).toEqual({
      type: 'finish',
      reason: 'content-filter',
      stopSequence: null,
    });
  });

  it('ends a filtered completion as incomplete (content_filter) for Responses clients', () => {
    const body = loadJsonFixture('azure-content-filter').body;
    const reading = azureForResponses.readResponse(body, input({ model: 'x', input: 'Hi' }));
    expect(reading.clientBody).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
  });
});
