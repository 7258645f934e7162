/**
 * @module gateway/providers/bedrock/usage
 * Bedrock's `usage` in the gateway's counts. `inputTokens` leaves out what was read from or written to
 * the prompt cache (Claude's semantics, which Bedrock keeps), so prompt tokens are the three added,
 * as for the anthropic kind. The figures are the upstream's word, checked before they count
 * (usage-check.ts): a refused usage is counted with the tokenizer instead.
 */
import type { TokenCounts } from '../../../contracts/neutral/usage.ts';
import { firstBadCount, isTokenCount, refuseUsage, type UsageRefusalNote } from '../usage-check.ts';

export function tokenCountsFromBedrock(usage: unknown, note?: UsageRefusalNote): TokenCounts | null {
  if (usage === null || usage === undefined) return null;
  if (typeof usage !== 'object' || Array.isArray(usage)) return refuseUsage(note, 'usage was not an object');
  const fields = usage as Record<string, unknown>;
  const input = fields['inputTokens'];
  const output = fields['outputTokens'];
  if (input === null || input === undefined) return refuseUsage(note, 'usage had no inputTokens');
  if (output === null || output === undefined) return refuseUsage(note, 'usage had no outputTokens');
  const cacheRead = fields['cacheReadInputTokens'] ?? 0;
  const cacheWrite = fields['cacheWriteInputTokens'] ?? 0;
  if (isTokenCount(input) && isTokenCount(output) && isTokenCount(cacheRead) && isTokenCount(cacheWrite)) {
    return {
      promptTokens: input + cacheRead + cacheWrite,
      completionTokens: output,
      cachedTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      // Converse does not report thinking tokens apart: they are in outputTokens.
      reasoningTokens: 0,
    };
  }
  const bad = firstBadCount({
    inputTokens: input,
    outputTokens: output,
    cacheReadInputTokens: cacheRead,
    cacheWriteInputTokens: cacheWrite,
  });
  return refuseUsage(note, bad ?? 'usage was not usable');
}
