/**
 * @module contracts/openai/embeddings-response
 * What `POST /v1/embeddings` answers (`CreateEmbeddingResponse` in OpenAI's OpenAPI document). The
 * vector is a list of floats, or, when the request asked `encoding_format: "base64"`, the base64 of
 * the same floats as little-endian 32-bit values (what the official SDKs decode).
 */
import { z } from 'zod';

export const embeddingSchema = z.object({
  object: z.literal('embedding'),
  index: z.number().int().min(0),
  embedding: z.union([z.array(z.number()), z.string()]),
});

export const embeddingsUsageSchema = z.object({
  prompt_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
});

export const embeddingsResponseSchema = z.object({
  object: z.literal('list'),
  data: z.array(embeddingSchema),
  model: z.string(),
  usage: embeddingsUsageSchema,
});

export type Embedding = z.infer<typeof embeddingSchema>;
export type EmbeddingsUsage = z.infer<typeof embeddingsUsageSchema>;
export type EmbeddingsResponse = z.infer<typeof embeddingsResponseSchema>;
