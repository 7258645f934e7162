/**
 * @module contracts/neutral/usage
 * Token accounting every format is read into, in OpenAI's semantics: `promptTokens` includes cached
 * and cache-write tokens, `completionTokens` includes reasoning tokens. `cacheWrite1hTokens` is the
 * part of `cacheWriteTokens` written to a one-hour cache (Anthropic's `ttl: "1h"`), which providers
 * charge more for than the default five-minute writes; absent when the upstream reports no such split.
 */
import { z } from 'zod';

export const tokenCountsSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  cachedTokens: z.number().int().min(0),
  cacheWriteTokens: z.number().int().min(0),
  cacheWrite1hTokens: z.number().int().min(0).optional(),
  reasoningTokens: z.number().int().min(0),
});

export type TokenCounts = z.infer<typeof tokenCountsSchema>;
