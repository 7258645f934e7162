/**
 * @module gateway/providers/openai/usage
 * OpenAI usage is already in the gateway's semantics: cached tokens are a subset of prompt tokens.
 */
import type { CompletionUsage } from '../../../contracts/openai/chat-response.ts';
import type { TokenCounts } from '../provider.ts';

export function tokenCountsFromOpenAI(usage: CompletionUsage | null | undefined): TokenCounts | null {
  if (!usage || typeof usage.prompt_tokens !== 'number') return null;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}
