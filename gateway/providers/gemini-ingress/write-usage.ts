/**
 * @module gateway/providers/gemini-ingress/write-usage
 * The neutral usage and finish reason in Gemini's words. Google's candidates count leaves out the
 * thoughts, reported beside it, and its prompt count includes the cached content; Google leaves out
 * a zero count, and so does this writer.
 */
import type { GeminiUsageMetadata } from '../../../contracts/gemini/generate-content-response.ts';
import type { FinishReason } from '../conversion/reply.ts';
import type { TokenCounts } from '../provider.ts';

export function usageMetadata(usage: TokenCounts): GeminiUsageMetadata {
  const thoughts = Math.min(usage.reasoningTokens, usage.completionTokens);
  return {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens - thoughts,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
    ...(usage.cachedTokens > 0 && { cachedContentTokenCount: usage.cachedTokens }),
  };
}

/** Gemini ends a turn that calls functions with STOP, and blocked output with SAFETY. */
export function geminiFinishReason(reason: FinishReason): string {
  switch (reason) {
    case 'length':
    case 'context-exceeded':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

/** Thought parts go back only to a client that asked for them, as Google answers. */
export function includesThoughts(body: Record<string, unknown>): boolean {
  const config = body['generationConfig'] as { thinkingConfig?: { includeThoughts?: unknown } } | undefined;
  return config?.thinkingConfig?.includeThoughts === true;
}
