/**
 * @module gateway/providers/anthropic/usage
 * Anthropic's `input_tokens` excludes cached parts; the gateway counts prompt tokens the OpenAI way,
 * so prompt = input + cache read + cache creation (docs/wire-formats.md §3.4), never double-counted.
 * `cache_creation.ephemeral_1h_input_tokens` is the part of the cache creation kept for an hour, which
 * is priced apart. The figures are the upstream's word, checked before they count (usage-check.ts).
 */
import type { AnthropicUsage } from '../../../contracts/anthropic/messages-response.ts';
import type { TokenCounts } from '../provider.ts';
import { firstBadCount, isTokenCount, refuseUsage, type UsageRefusalNote } from '../usage-check.ts';

type LooseUsage = Partial<AnthropicUsage> & {
  output_tokens_details?: { thinking_tokens?: unknown } | null;
  cache_creation?: { ephemeral_1h_input_tokens?: unknown } | null;
};

/**
 * The counts of an Anthropic `usage` object (absent cache fields count 0); null when there is none,
 * or when its figures are not counts the gateway believes (then `note` says why).
 */
export function tokenCountsFromAnthropic(
  usage: Partial<AnthropicUsage> | null | undefined,
  note?: UsageRefusalNote,
): TokenCounts | null {
  if (usage === null || usage === undefined) return null;
  if (typeof usage !== 'object' || Array.isArray(usage)) return refuseUsage(note, 'usage was not an object');
  const loose = usage as LooseUsage;
  const input: unknown = loose.input_tokens;
  const output: unknown = loose.output_tokens;
  // Without either, the request would be billed nothing for that side (a stream's message_delta may
  // leave them null, but the stream readers merge it over message_start's before asking).
  if (input === null || input === undefined) return refuseUsage(note, 'usage had no input_tokens');
  if (output === null || output === undefined) return refuseUsage(note, 'usage had no output_tokens');
  const cacheRead: unknown = loose.cache_read_input_tokens ?? 0;
  const cacheWrite: unknown = loose.cache_creation_input_tokens ?? 0;
  const thinking: unknown = loose.output_tokens_details?.thinking_tokens ?? 0;
  const hourWrite: unknown = loose.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  if (
    isTokenCount(input) &&
    isTokenCount(output) &&
    isTokenCount(cacheRead) &&
    isTokenCount(cacheWrite) &&
    isTokenCount(thinking) &&
    isTokenCount(hourWrite)
  ) {
    // A part larger than its whole is not a count of this request.
    if (hourWrite > cacheWrite) {
      return refuseUsage(
        note,
        'usage.cache_creation.ephemeral_1h_input_tokens was more than the cache_creation_input_tokens it is part of',
      );
    }
    const counts: TokenCounts = {
      promptTokens: input + cacheRead + cacheWrite,
      completionTokens: output,
      cachedTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: thinking,
    };
    if (hourWrite > 0) counts.cacheWrite1hTokens = hourWrite;
    return counts;
  }
  const bad = firstBadCount({
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
    'output_tokens_details.thinking_tokens': thinking,
    'cache_creation.ephemeral_1h_input_tokens': hourWrite,
  });
  return refuseUsage(note, bad ?? 'usage was not usable');
}
