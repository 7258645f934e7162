/**
 * @module gateway/providers/conversion/map-usage
 * Usage in each wire format from the gateway's token counts (docs/wire-formats.md §3.4). The counts are in
 * OpenAI semantics (prompt includes cached and cache-write tokens), so OpenAI's usage is a rename and
 * Anthropic's `input_tokens` is what remains once both cache parts are taken out: a client that adds
 * the three Anthropic fields gets the prompt back, never a double count (pitfall 15).
 */
import type { CompletionUsage } from '../../../contracts/openai/chat-response.ts';
import type { TokenCounts } from '../provider.ts';

export interface AnthropicUsageOut {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export function openAIUsage(counts: TokenCounts): CompletionUsage {
  return {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
    prompt_tokens_details: {
      cached_tokens: counts.cachedTokens,
      ...(counts.cacheWriteTokens > 0 && { cache_write_tokens: counts.cacheWriteTokens }),
    },
    completion_tokens_details: { reasoning_tokens: counts.reasoningTokens },
  };
}

export function anthropicUsage(counts: TokenCounts): AnthropicUsageOut {
  return {
    input_tokens: Math.max(0, counts.promptTokens - counts.cachedTokens - counts.cacheWriteTokens),
    output_tokens: counts.completionTokens,
    cache_creation_input_tokens: counts.cacheWriteTokens,
    cache_read_input_tokens: counts.cachedTokens,
  };
}

export const emptyAnthropicUsage: AnthropicUsageOut = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};
