/**
 * @module gateway/providers/anthropic/usage
 * Anthropic's `input_tokens` excludes cached parts; the gateway counts prompt tokens the OpenAI way,
 * so prompt = input + cache read + cache creation (wire-formats §3.4), never double-counted.
 */
import type { AnthropicUsage } from '../../../contracts/anthropic/messages-response.ts';
import type { TokenCounts } from '../provider.ts';

export function tokenCountsFromAnthropic(usage: Partial<AnthropicUsage> | null | undefined): TokenCounts | null {
  if (!usage) return null;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const thinking =
    (usage as { output_tokens_details?: { thinking_tokens?: number } }).output_tokens_details?.thinking_tokens ?? 0;
  return {
    promptTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    completionTokens: usage.output_tokens ?? 0,
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: thinking,
  };
}
