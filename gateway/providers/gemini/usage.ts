/**
 * @module gateway/providers/gemini/usage
 * Gemini's `usageMetadata` in the gateway's counts (OpenAI semantics). Google's prompt count already
 * includes the cached content, and tool-use prompt tokens are input too; the candidates count leaves
 * out the thoughts, which OpenAI's completion count includes. Google omits a zero count from its
 * JSON, so an absent figure is 0, except the prompt's: a request always has one, and without it the
 * reply would bill nothing for its input. The figures are the upstream's word, checked before they
 * count (usage-check.ts).
 */
import type { GeminiUsageMetadata } from '../../../contracts/gemini/generate-content-response.ts';
import type { TokenCounts } from '../provider.ts';
import { firstBadCount, isTokenCount, refuseUsage, type UsageRefusalNote } from '../usage-check.ts';

export function tokenCountsFromGemini(
  usage: GeminiUsageMetadata | null | undefined,
  note?: UsageRefusalNote,
): TokenCounts | null {
  if (usage === null || usage === undefined) return null;
  if (typeof usage !== 'object' || Array.isArray(usage)) return refuseUsage(note, 'usageMetadata was not an object');
  const prompt: unknown = usage.promptTokenCount;
  if (prompt === null || prompt === undefined) return refuseUsage(note, 'usageMetadata had no promptTokenCount');
  const fields: Record<string, unknown> = {
    promptTokenCount: prompt,
    toolUsePromptTokenCount: usage.toolUsePromptTokenCount ?? 0,
    candidatesTokenCount: usage.candidatesTokenCount ?? 0,
    thoughtsTokenCount: usage.thoughtsTokenCount ?? 0,
    cachedContentTokenCount: usage.cachedContentTokenCount ?? 0,
  };
  const {
    promptTokenCount,
    toolUsePromptTokenCount,
    candidatesTokenCount,
    thoughtsTokenCount,
    cachedContentTokenCount,
  } = fields;
  if (
    !isTokenCount(promptTokenCount) ||
    !isTokenCount(toolUsePromptTokenCount) ||
    !isTokenCount(candidatesTokenCount) ||
    !isTokenCount(thoughtsTokenCount) ||
    !isTokenCount(cachedContentTokenCount)
  ) {
    return refuseUsage(note, firstBadCount(fields)?.replace('usage.', 'usageMetadata.') ?? 'usage was not usable');
  }
  const promptTokens = promptTokenCount + toolUsePromptTokenCount;
  // A cached count above the prompt it is part of is not a count of this request.
  if (cachedContentTokenCount > promptTokens) {
    return refuseUsage(note, 'usageMetadata.cachedContentTokenCount was more than the prompt it is part of');
  }
  return {
    promptTokens,
    completionTokens: candidatesTokenCount + thoughtsTokenCount,
    cachedTokens: cachedContentTokenCount,
    cacheWriteTokens: 0,
    reasoningTokens: thoughtsTokenCount,
  };
}
