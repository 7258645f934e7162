/**
 * @module gateway/providers/bedrock/usage
 * Bedrock's `usage` in the gateway's counts. `inputTokens` leaves out what was read from or written to
 * the prompt cache (Claude's semantics, which Bedrock keeps), so prompt tokens are the three added,
 * as for the anthropic kind. `cacheDetails` splits the cache writes by how long they are kept
 * (`5m`, `1h`); the one-hour part is priced apart. The figures are the upstream's word, checked
 * before they count (usage-check.ts): a refused usage is counted with the tokenizer instead.
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
  const hourWrite = hourWriteOf(fields['cacheDetails']);
  if (
    isTokenCount(input) &&
    isTokenCount(output) &&
    isTokenCount(cacheRead) &&
    isTokenCount(cacheWrite) &&
    isTokenCount(hourWrite)
  ) {
    if (hourWrite > cacheWrite) {
      return refuseUsage(note, 'usage.cacheDetails counted more one-hour writes than cacheWriteInputTokens');
    }
    const counts: TokenCounts = {
      promptTokens: input + cacheRead + cacheWrite,
      completionTokens: output,
      cachedTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      // Converse does not report thinking tokens apart: they are in outputTokens.
      reasoningTokens: 0,
    };
    if (hourWrite > 0) counts.cacheWrite1hTokens = hourWrite;
    return counts;
  }
  const bad = firstBadCount({
    inputTokens: input,
    outputTokens: output,
    cacheReadInputTokens: cacheRead,
    cacheWriteInputTokens: cacheWrite,
    'cacheDetails[ttl=1h].inputTokens': hourWrite,
  });
  return refuseUsage(note, bad ?? 'usage was not usable');
}

/** The one-hour writes of `cacheDetails` (`[{ttl, inputTokens}]`), summed; what is not a count is returned as is. */
function hourWriteOf(details: unknown): unknown {
  if (details === null || details === undefined) return 0;
  if (!Array.isArray(details)) return details;
  let sum = 0;
  for (const detail of details) {
    if (detail === null || typeof detail !== 'object') return detail;
    const { ttl, inputTokens } = detail as Record<string, unknown>;
    if (ttl !== '1h') continue;
    if (!isTokenCount(inputTokens)) return inputTokens;
    sum += inputTokens;
  }
  return sum;
}
