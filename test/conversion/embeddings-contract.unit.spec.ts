/**
 * The embeddings contract against OpenAI's published OpenAPI document: the bodies the gateway's
 * contract accepts and refuses are the ones `CreateEmbeddingRequest` accepts and refuses, and what the
 * gateway answers after converting base64 vectors to floats is a `CreateEmbeddingResponse`.
 */
import { describe, expect, it } from 'vitest';
import { embeddingsRequestSchema } from '../../contracts/openai/embeddings-request.ts';
import { floatsToBase64 } from '../../gateway/providers/openai/embedding-encoding.ts';
import { openAIEmbeddingsProvider } from '../../gateway/providers/openai/embeddings.ts';
import { validateAgainst } from './support/openapi-schema.ts';
import { relayInput } from './support/relay-input.ts';

const model = 'text-embedding-3-small';

describe('the embeddings request contract', () => {
  it.each([
    { model, input: 'text' },
    { model, input: ['a', 'b'], dimensions: 256, encoding_format: 'base64', user: 'u-1' },
    { model, input: [1, 2, 3], encoding_format: 'float' },
    { model, input: [[1, 2], [3]] },
  ])('accepts what OpenAI documents: %j', (body) => {
    expect(validateAgainst('CreateEmbeddingRequest', body)).toEqual([]);
    expect(embeddingsRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each([
    { model },
    { input: 'text' },
    { model, input: 'x', encoding_format: 'binary' },
    { model, input: 'x', extra: true },
    { model, input: [] },
    { model, input: [1.5] },
  ])('refuses what OpenAI refuses: %j', (body) => {
    expect(validateAgainst('CreateEmbeddingRequest', body)).not.toEqual([]);
    expect(embeddingsRequestSchema.safeParse(body).success).toBe(false);
  });

  // The document's `minimum: 1` and an inner `minItems: 1`, which the test validator does not check.
  it.each([
    { model, input: 'x', dimensions: 0 },
    { model, input: [[]] },
  ])('refuses what the document bounds: %j', (body) => {
    expect(embeddingsRequestSchema.safeParse(body).success).toBe(false);
  });
});

it('answers a CreateEmbeddingResponse after converting base64 vectors to floats', () => {
  const upstream = {
    object: 'list',
    data: [0, 1].map((index) => ({ object: 'embedding', index, embedding: floatsToBase64([0.25, -index]) })),
    model,
    usage: { prompt_tokens: 4, total_tokens: 4 },
  };
  const reading = openAIEmbeddingsProvider.readResponse(
    upstream,
    relayInput({ model, input: ['a', 'b'], encoding_format: 'float' }, { type: 'openai' }),
  );
  expect(validateAgainst('CreateEmbeddingResponse', reading.clientBody)).toEqual([]);
  expect((reading.clientBody as typeof upstream).data[1]!.embedding).toEqual([0.25, -1]);
});
