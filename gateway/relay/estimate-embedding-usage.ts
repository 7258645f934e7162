/**
 * @module gateway/relay/estimate-embedding-usage
 * The prompt tokens of an embeddings request, for an upstream that reports none: token arrays are
 * counted exactly (one id, one token), text with the BPE tokenizer under one counting budget for the
 * whole request (tokenizer.ts), so 2048 long inputs cost no more to estimate than one.
 */
import type { TokenCounts } from '../providers/provider.ts';
import { countingBudget, countTokens } from './tokenizer.ts';

export function estimateEmbeddingTokens(body: Record<string, unknown>): number {
  const input = body['input'];
  const budget = countingBudget();
  if (typeof input === 'string') return countTokens(input, budget);
  if (!Array.isArray(input)) return 0;
  let tokens = 0;
  for (const entry of input) {
    if (typeof entry === 'string') tokens += countTokens(entry, budget);
    else if (Array.isArray(entry)) tokens += entry.length;
    // A flat token array: each entry is one token id.
    else tokens += 1;
  }
  return tokens;
}

export function estimateEmbeddingUsage(body: Record<string, unknown>): TokenCounts {
  return {
    promptTokens: estimateEmbeddingTokens(body),
    completionTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}
