/**
 * @module contracts/neutral/usage
 * Token accounting every format is read into, in OpenAI's semantics: `promptTokens` includes cached
 * and cache-write tokens, `completionTokens` includes reasoning tokens.
 */
import { z } from 'zod';

export const tokenCountsSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  cachedTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
  reasoningTokens: z.number().int().min(0),
});

export type TokenCounts = z.infer<typeof tokenCountsSchema>;
