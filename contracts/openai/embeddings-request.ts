/**
 * @module contracts/openai/embeddings-request
 * The body of `POST /v1/embeddings`, as OpenAI's OpenAPI document writes `CreateEmbeddingRequest`:
 * `input` as one string, a list of strings, one token array or a list of token arrays (each list of
 * 1 to 2048 entries, no empty string), `dimensions` (bounded here, not there), `encoding_format`,
 * `user`. The document closes the object (`additionalProperties: false`), and so does this contract:
 * a misspelt `dimension` would otherwise be relayed, ignored upstream, and return vectors of the
 * wrong length unnoticed.
 */
import { z } from 'zod';

/** The most inputs one request may hold, in OpenAI's document. */
export const MAX_EMBEDDING_INPUTS = 2048;

/**
 * The most `dimensions` any request may ask for (OpenAI's document sets no maximum): far above any
 * embedding model's vectors (3,072 for OpenAI's largest), and low enough that a vector asked of a
 * self-hosted server stays a few hundred kilobytes per input.
 */
export const MAX_EMBEDDING_DIMENSIONS = 65_536;

const text = z.string().min(1, 'must not be an empty string');
const tokenId = z.number().int().min(0);
const tokenArray = z.array(tokenId).min(1, 'must hold at least one token');
const tooMany = `must hold at most ${MAX_EMBEDDING_INPUTS} inputs`;

export const embeddingInputSchema = z.union([
  text,
  z.array(text).min(1, 'must hold at least one input').max(MAX_EMBEDDING_INPUTS, tooMany),
  tokenArray.max(MAX_EMBEDDING_INPUTS, `must hold at most ${MAX_EMBEDDING_INPUTS} tokens`),
  z.array(tokenArray).min(1, 'must hold at least one input').max(MAX_EMBEDDING_INPUTS, tooMany),
]);

export const encodingFormatSchema = z.enum(['float', 'base64']);

export const embeddingsRequestSchema = z.strictObject({
  model: z.string().min(1, 'must name a model'),
  input: embeddingInputSchema,
  /** default float */
  encoding_format: encodingFormatSchema.optional(),
  dimensions: z.number().int().min(1).max(MAX_EMBEDDING_DIMENSIONS).optional(),
  user: z.string().optional(),
});

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;
export type EmbeddingInput = z.infer<typeof embeddingInputSchema>;
export type EncodingFormat = z.infer<typeof encodingFormatSchema>;
