/**
 * The fake's Azure OpenAI, checked against the official `AzureOpenAI` client of the `openai` package:
 * the client builds Azure's URLs itself (`/openai/deployments/{deployment}/…?api-version=…`, the key
 * as `api-key`), so the routes the fake serves are the ones Azure's own SDK calls, and each Azure
 * fixture parses into what it says.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { azureErrorCases, azureJsonOnlyCases, azureReplyCases } from './azure-cases.ts';
import { loadJsonFixture, parseStreamChunks } from './fixtures.ts';
import { type FakeUpstream, startFakeUpstream } from './server.ts';

const apiVersion = '2024-10-21';
const key = 'azure-fake-key';
let upstream: FakeUpstream;
let azure: AzureOpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream({ apiKey: key });
  azure = new AzureOpenAI({ endpoint: upstream.url, apiKey: key, apiVersion, maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const request = { model: 'gpt-4o-deployment', messages: [{ role: 'user' as const, content: 'Hello' }] };

describe('Azure fixtures through the AzureOpenAI client', () => {
  it("serves the deployment route the client builds, with the client's api-version and api-key", async () => {
    await azure.chat.completions.create(request);
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/openai/deployments/gpt-4o-deployment/chat/completions');
    expect(sent.search).toBe(`?api-version=${apiVersion}`);
    expect(sent.headers['api-key']).toBe(key);
  });

  it.each([...azureReplyCases, ...azureJsonOnlyCases])('chat.completions.create parses azure-%s', async (caseName) => {
    upstream.next(caseName);
    const completion = await azure.chat.completions.create(request);
    expect(completion).toEqual(loadJsonFixture(`azure-${caseName}`).body);
  });

  it.each(azureReplyCases)('a stream of azure-%s-stream assembles what its chunks hold', async (caseName) => {
    upstream.next(caseName);
    const stream = azure.chat.completions.stream({ ...request, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    const chunks = parseStreamChunks(`azure-${caseName}-stream`) as Array<Record<string, any>>;
    const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
    expect(final.choices[0]!.message.content ?? '').toBe(text);
    expect(final.usage).toEqual(chunks.at(-1)!.usage);
    expect(final.choices[0]!.finish_reason).toBe(
      chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.finish_reason)).find(Boolean),
    );
  });

  it.each(azureErrorCases)(
    'azure-%s raises an APIError of status %i with its body and headers',
    async (caseName, status) => {
      const fixture = loadJsonFixture(`azure-${caseName}`);
      upstream.next(caseName);
      const error = await azure.chat.completions.create(request).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toEqual((fixture.body as { error: unknown }).error);
      expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after-ms') ?? null).toBe(
        fixture.headers['retry-after-ms'] ?? null,
      );
    },
  );

  it('refuses a wrong key and a deployment route without api-version as Azure does', async () => {
    const wrong = new AzureOpenAI({ endpoint: upstream.url, apiKey: 'other', apiVersion, maxRetries: 0 });
    await expect(wrong.chat.completions.create(request)).rejects.toMatchObject({ status: 401 });
    const unversioned = await fetch(`${upstream.url}/openai/deployments/d/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(unversioned.status).toBe(404);
    const bearer = await fetch(`${upstream.url}/openai/deployments/d/chat/completions?api-version=${apiVersion}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(bearer.status).toBe(401);
  });

  it('serves embeddings on the deployment route', async () => {
    const reply = await azure.embeddings.create({
      model: 'embedding-deployment',
      input: ['a', 'b'],
      encoding_format: 'float',
    });
    expect(reply.data).toHaveLength(2);
    expect(upstream.requests[0]!.path).toBe('/openai/deployments/embedding-deployment/embeddings');
  });

  it("serves the Responses API on Azure's v1 route, as the OpenAI client pointed at it calls it", async () => {
    const v1 = new OpenAI({
      baseURL: `${upstream.url}/openai/v1`,
      apiKey: key,
      defaultHeaders: { 'api-key': key },
      maxRetries: 0,
    });
    const response = await v1.responses.create({ model: 'gpt-4o-deployment', input: 'Hello' });
    expect(response.output_text).toBe('Hello! How can I help you today?');
    expect(upstream.requests[0]!.path).toBe('/openai/v1/responses');
  });
});
