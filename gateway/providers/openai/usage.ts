/**
 * @module gateway/providers/openai/usage
 * OpenAI usage is already in the gateway's semantics: cached tokens are a subset of prompt tokens.
 * The figures are the upstream's word, checked before they count (usage-check.ts).
 */
import type { CompletionUsage } from '../../../contracts/openai/chat-response.ts';
import type { TokenCounts } from '../provider.ts';
import { firstBadCount, isTokenCount, refuseUsage, type UsageRefusalNote } from '../usage-check.ts';

type LooseUsage = Partial<CompletionUsage> & {
  prompt_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
};

/**
 * The counts of an OpenAI `usage` object; null when there is none, or when its figures are not
 * counts the gateway believes (then `note` says why, and the caller counts the tokens itself).
 */
export function tokenCountsFromOpenAI(
  usage: CompletionUsage | null | undefined,
  note?: UsageRefusalNote,
): TokenCounts | null {
  if (usage === null || usage === undefined) return null;
  if (typeof usage !== 'object' || Array.isArray(usage)) return refuseUsage(note, 'usage was not an object');
  const loose = usage as LooseUsage;
  const promptTokens: unknown = loose.prompt_tokens;
  const completionTokens: unknown = loose.completion_tokens;
  // Without either, the request would be billed nothing for that side.
  if (promptTokens === null || promptTokens === undefined) return refuseUsage(note, 'usage had no prompt_tokens');
  if (completionTokens === null || completionTokens === undefined) {
    return refuseUsage(note, 'usage had no completion_tokens');
  }
  const cachedTokens: unknown = loose.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWriteTokens: unknown = loose.prompt_tokens_details?.cache_write_tokens ?? 0;
  const reasoningTokens: unknown = loose.completion_tokens_details?.reasoning_tokens ?? 0;
  if (
    isTokenCount(promptTokens) &&
    isTokenCount(completionTokens) &&
    isTokenCount(cachedTokens) &&
    isTokenCount(cacheWriteTokens) &&
    isTokenCount(reasoningTokens) &&
    cachedTokens + cacheWriteTokens <= promptTokens
  ) {
    return { promptTokens, completionTokens, cachedTokens, cacheWriteTokens, reasoningTokens };
  }
  const bad = firstBadCount({
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    'prompt_tokens_details.cached_tokens': cachedTokens,
    'prompt_tokens_details.cache_write_tokens': cacheWriteTokens,
    'completion_tokens_details.reasoning_tokens': reasoningTokens,
  });
  return refuseUsage(
    note,
    bad ??
      `usage counted more cached tokens (${cachedTokens} + ${cacheWriteTokens}) than prompt tokens (${promptTokens})`,
  );
}
