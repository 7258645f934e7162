/**
 * POST /v1/embeddings through the gateway to the fake upstream, with the official `openai` client:
 * float and base64 vectors (with `dimensions`), the conversion when an upstream answers the other
 * encoding, the usage event (`embeddings`, priced, estimated when the upstream sends none), the key's
 * quota and limits, failover, and clear OpenAI-shaped refusals of bad bodies.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { DEFAULT_FAKE_DIMENSIONS, fakeVector } from '../fake-upstream/embeddings-reply.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

let harness: Harness;
let consoleClient: ConsoleClient;
let key: string;
let openai: OpenAI;
const fixtureUsage = (loadJsonFixture('openai-embeddings').body as { usage: { prompt_tokens: number } }).usage;

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [
      { name: 'embeddings-a', type: 'openai', models: ['text-embedding-3-small', 'embed-mapped'], priority: 2 },
      { name: 'embeddings-b', type: 'openai', models: ['text-embedding-3-small'], priority: 1 },
    ],
  });
  consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register('embeddings@example.com');
  key = (await consoleClient.createToken('embeddings')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

function float32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
}

async function events(): Promise<{ completed: RequestCompleted[]; usage: UsageRecorded[] }> {
  await harness.runtime.publisher.flush();
  const all = loggedEvents(harness.dataDirectory);
  return {
    completed: all.filter((event): event is RequestCompleted => event.type === 'request.completed'),
    usage: all.filter((event): event is UsageRecorded => event.type === 'usage.recorded'),
  };
}

/** RPM windows are clock minutes: two requests either side of a minute's end would both be first. */
async function clearOfMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 57_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}

async function post(body: unknown, apiKey = key): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('POST /v1/embeddings with the openai client', () => {
  it('returns float vectors of the asked dimensions, one per input, with the upstream usage', async () => {
    const reply = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['first text', 'second text'],
      dimensions: 4,
      encoding_format: 'float',
    });
    expect(reply.object).toBe('list');
    expect(reply.data.map((item) => item.embedding)).toEqual([fakeVector(0, 4), fakeVector(1, 4)]);
    expect(reply.data.map((item) => item.index)).toEqual([0, 1]);
    expect(reply.usage).toEqual(fixtureUsage);
    const sent = harness.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['first text', 'second text'],
      dimensions: 4,
      encoding_format: 'float',
    });
  });

  it('relays base64 as asked, and the SDK default (base64, decoded by the client) gives floats', async () => {
    const explicit = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'text',
      dimensions: 6,
      encoding_format: 'base64',
    });
    expect(typeof explicit.data[0]!.embedding).toBe('string');
    expect(float32(explicit.data[0]!.embedding as unknown as string)).toEqual(fakeVector(0, 6));
    const defaulted = await openai.embeddings.create({ model: 'text-embedding-3-small', input: [[101, 102, 103]] });
    expect((harness.upstream.requests[1]!.body as any).encoding_format).toBe('base64');
    expect(defaulted.data[0]!.embedding).toEqual(fakeVector(0, DEFAULT_FAKE_DIMENSIONS));
  });

  it('converts floats to base64 when the upstream ignores the asked encoding, and base64 to floats', async () => {
    harness.upstream.next({ fixture: 'embeddings', embeddingEncoding: 'float' });
    const toBase64 = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b', 'c'],
      dimensions: 5,
    });
    expect(toBase64.data.map((item) => item.embedding)).toEqual([0, 1, 2].map((index) => fakeVector(index, 5)));
    harness.upstream.next({ fixture: 'embeddings', embeddingEncoding: 'base64' });
    const toFloats = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'a',
      encoding_format: 'float',
    });
    expect(toFloats.data[0]!.embedding).toEqual(fakeVector(0, DEFAULT_FAKE_DIMENSIONS));
  });

  it('sends the channel model name and fails over to the next channel on a 500', async () => {
    harness.upstream.next('error-500');
    const reply = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: 'x',
      encoding_format: 'float',
    });
    expect(reply.data).toHaveLength(1);
    expect(harness.upstream.requests).toHaveLength(2);
    const { completed } = await events();
    expect(completed.at(-1)!.body.attempts?.map((attempt) => attempt.status)).toEqual([500, 200]);
  });
});

describe('GET /v1/models', () => {
  it('lists the embedding models beside the chat models, and only those a limited key may use', async () => {
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['text-embedding-3-small', 'embed-mapped', 'gpt-4o-mini']));
    const { key: embeddingsOnly } = await consoleClient.createToken('embeddings only', {
      models: ['text-embedding-3-small'],
    });
    const limited = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: embeddingsOnly, maxRetries: 0 });
    expect((await limited.models.list()).data.map((model) => model.id)).toEqual(['text-embedding-3-small']);
  });
});

describe('usage and accounting', () => {
  it('records an `embeddings` request and its prompt tokens, priced from the price database', async () => {
    const before = (await events()).usage.length;
    await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'priced', encoding_format: 'float' });
    const { completed, usage } = await events();
    expect(usage).toHaveLength(before + 1);
    const recorded = usage.at(-1)!.body;
    expect(completed.find((event) => event.body.requestId === recorded.requestId)!.body).toMatchObject({
      endpoint: 'embeddings',
      status: 200,
      stream: false,
      modelServed: 'text-embedding-3-small',
    });
    expect(recorded).toMatchObject({
      model: 'text-embedding-3-small',
      promptTokens: fixtureUsage.prompt_tokens,
      completionTokens: 0,
      source: 'upstream',
    });
    // text-embedding-3-small: $0.02 per million input tokens, 20 nano-dollars a token.
    expect(recorded.costNanoUsd).toBe(fixtureUsage.prompt_tokens * 20);
  });

  it('estimates the prompt with the tokenizer when the upstream sends no usage, and says so', async () => {
    harness.upstream.next('embeddings-no-usage');
    await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['hello world', 'the quick brown fox'],
      encoding_format: 'float',
    });
    harness.upstream.next('embeddings-no-usage');
    await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
    });
    const recorded = (await events()).usage.slice(-2).map((event) => event.body);
    // o200k_base: "hello world" is 2 tokens, "the quick brown fox" 4; token arrays count their ids.
    expect(recorded.map((body) => [body.promptTokens, body.source])).toEqual([
      [6, 'estimated'],
      [5, 'estimated'],
    ]);
  });

  it("counts the prompt tokens against the key's quota and refuses once it is used", async () => {
    const { key: limited, id } = await consoleClient.createToken('embeddings quota', { quota: 30 });
    const statuses = [];
    for (let index = 0; index < 3; index++)
      statuses.push((await post({ model: 'embed-mapped', input: 'q' }, limited)).status);
    expect(statuses).toEqual([200, 200, 429]);
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();
    const { body } = await consoleClient.call('GET', '/api/tokens');
    expect(body.items.find((item: { id: string }) => item.id === id).used_tokens).toBe(2 * fixtureUsage.prompt_tokens);
    // The mapped model goes upstream under the channel's name for it.
    expect((harness.upstream.requests[0]!.body as any).model).toBe('embed-mapped');
  });

  it("applies the key's model allowlist and RPM limit", async () => {
    const { key: listed } = await consoleClient.createToken('chat only', { models: ['gpt-4o-mini'] });
    const refused = await post({ model: 'text-embedding-3-small', input: 'x' }, listed);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    const { key: slow } = await consoleClient.createToken('one a minute', { rpm_limit: 1 });
    await clearOfMinuteEnd();
    expect((await post({ model: 'text-embedding-3-small', input: 'x' }, slow)).status).toBe(200);
    const limited = await post({ model: 'text-embedding-3-small', input: 'x' }, slow);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
  });
});

describe('refusals', () => {
  const model = 'text-embedding-3-small';
  it.each([
    ['no model', { input: 'x' }, 'model', 'model: is required'],
    ['no input', { model }, 'input', 'input: is required'],
    ['an empty string', { model, input: '' }, 'input', 'must not be an empty string'],
    ['an empty list', { model, input: [] }, 'input', 'at least 1'],
    ['an empty string in a list', { model, input: ['ok', ''] }, 'input[1]', 'must not be an empty string'],
    ['a negative token id', { model, input: [[1, -2]] }, 'input[0][1]', 'at least 0'],
    ['2049 inputs', { model, input: Array(2049).fill('x') }, 'input', 'at most 2048'],
    ['an unknown encoding', { model, input: 'x', encoding_format: 'binary' }, 'encoding_format', '"float", "base64"'],
    ['zero dimensions', { model, input: 'x', dimensions: 0 }, 'dimensions', 'at least 1'],
    ['a fraction of a dimension', { model, input: 'x', dimensions: 2.5 }, 'dimensions', 'must be an integer'],
    ['a billion dimensions', { model, input: 'x', dimensions: 1e9 }, 'dimensions', 'dimensions: must be at most 65536'],
    [
      "more dimensions than the model's vectors",
      { model, input: 'x', dimensions: 1537 },
      'dimensions',
      'dimensions: must be at most 1536 for text-embedding-3-small',
    ],
    [
      'over the general cap for a model the gateway does not know',
      { model: 'embed-mapped', input: 'x', dimensions: 65_537 },
      'dimensions',
      'dimensions: must be at most 65536',
    ],
    ['a misspelt field', { model, input: 'x', dimension: 4 }, null, 'unknown field(s) dimension'],
    ['stream', { model, input: 'x', stream: true }, null, 'unknown field(s) stream'],
  ])('refuses %s with an OpenAI-shaped 400 that names the field', async (_case, body, param, words) => {
    const { status, body: answer } = await post(body);
    expect(status).toBe(400);
    expect(answer.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(answer.error.message).toContain(words);
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it("relays dimensions up to the model's vector length, or the general cap for a model it does not know", async () => {
    for (const [name, dimensions] of [
      [model, 1536],
      ['embed-mapped', 4096],
    ] as const) {
      const { status, body } = await post({ model: name, input: 'x', dimensions });
      expect(status).toBe(200);
      expect(body.data[0].embedding).toHaveLength(dimensions);
    }
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('answers a model only Anthropic channels serve with a 400 that says why, an unknown one with 404', async () => {
    const anthropicOnly = await openai.embeddings
      .create({ model: 'claude-sonnet-4-5', input: 'x' })
      .catch((error: unknown) => error);
    expect(anthropicOnly).toBeInstanceOf(OpenAI.BadRequestError);
    expect((anthropicOnly as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: 'model_not_supported',
      param: 'model',
    });
    expect((anthropicOnly as Error).message).toContain('no embeddings API');
    const unknown = await openai.embeddings.create({ model: 'no-such-model', input: 'x' }).catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('answers GET with 405 in the OpenAI shape', async () => {
    const response = await fetch(`${harness.baseUrl}/v1/embeddings`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(405);
    expect(((await response.json()) as any).error.type).toBe('invalid_request_error');
  });
});
