/**
 * The fake's embeddings and token counting, read by the official SDKs pointed straight at it: the
 * vectors follow the request (count, `dimensions`, `encoding_format`) unless a scenario plays an
 * upstream that ignores the encoding, and count_tokens answers Anthropic's recorded shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_DIMENSIONS, fakeVector } from './embeddings-reply.ts';
import { loadJsonFixture } from './fixtures.ts';
import { type FakeUpstream, startFakeUpstream } from './server.ts';

let upstream: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  openai = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'test', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: upstream.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

describe('fake embeddings', () => {
  it('answers one float vector per input, `dimensions` long, with the fixture usage', async () => {
    const reply = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['one', 'two'],
      dimensions: 4,
      encoding_format: 'float',
    });
    expect(reply.data.map((item) => item.embedding)).toEqual([fakeVector(0, 4), fakeVector(1, 4)]);
    expect(reply.usage).toEqual((loadJsonFixture('openai-embeddings').body as any).usage);
  });

  it('answers base64 to the SDK default, which the SDK decodes', async () => {
    const reply = await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'one' });
    expect((upstream.requests[0]!.body as any).encoding_format).toBe('base64');
    expect(reply.data[0]!.embedding).toEqual(fakeVector(0, DEFAULT_FAKE_DIMENSIONS));
  });

  it('plays an upstream that ignores encoding_format', async () => {
    upstream.next({ fixture: 'embeddings', embeddingEncoding: 'float' });
    const reply = await openai.embeddings.create({
      model: 'text-embedding-3-small',
      input: [[1, 2, 3]],
      encoding_format: 'base64',
    });
    expect(reply.data[0]!.embedding).toEqual(fakeVector(0, DEFAULT_FAKE_DIMENSIONS));
  });

  it('leaves usage out for the no-usage case', async () => {
    upstream.next('embeddings-no-usage');
    const reply = await openai.embeddings.create({ model: 'm', input: 'x', encoding_format: 'float' });
    expect(reply.usage).toBeUndefined();
  });
});

describe('fake count_tokens', () => {
  it('answers the recorded count for the SDK, with the headers a messages call needs', async () => {
    const count = await anthropic.messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(count).toEqual(loadJsonFixture('anthropic-count-tokens').body);
    expect(upstream.requests[0]!.path).toBe('/v1/messages/count_tokens');
  });
});
