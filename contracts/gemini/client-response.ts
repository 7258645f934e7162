/**
 * @module contracts/gemini/client-response
 * What the gateway answers Gemini-format clients besides `GenerateContentResponse`
 * (generate-content-response.ts): token counts, embeddings and the model list, as Google's API
 * reference writes them.
 */
import { z } from 'zod';

export const countTokensResponseSchema = z.object({
  totalTokens: z.number().int(),
  cachedContentTokenCount: z.number().int().optional(),
});

export const contentEmbeddingSchema = z.object({ values: z.array(z.number()) });

export const embedContentResponseSchema = z.object({ embedding: contentEmbeddingSchema });

export const batchEmbedContentsResponseSchema = z.object({ embeddings: z.array(contentEmbeddingSchema) });

/** One model of `GET /v1beta/models`; `name` is `models/{id}`. */
export const geminiModelSchema = z.object({
  name: z.string(),
  baseModelId: z.string().optional(),
  version: z.string(),
  displayName: z.string(),
  description: z.string().optional(),
  inputTokenLimit: z.number().int().optional(),
  outputTokenLimit: z.number().int().optional(),
  supportedGenerationMethods: z.array(z.string()),
});

export const listModelsResponseSchema = z.object({
  models: z.array(geminiModelSchema),
  nextPageToken: z.string().optional(),
});

export type CountTokensResponse = z.infer<typeof countTokensResponseSchema>;
export type ContentEmbedding = z.infer<typeof contentEmbeddingSchema>;
export type GeminiModel = z.infer<typeof geminiModelSchema>;
export type ListModelsResponse = z.infer<typeof listModelsResponseSchema>;
