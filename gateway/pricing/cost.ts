/**
 * @module gateway/pricing/cost
 * The cost of one request in integer nano-dollars, from its token counts and a price. Prices are
 * decimal USD (per million tokens, per request); each is first turned into an integer, so the sum is
 * exact and rounds once, to the nearest nano-dollar, whatever the order of the parts:
 * a price per million tokens in micro-dollars is a price per token in pico-dollars (1e-12 USD).
 *
 * The prompt count follows OpenAI's semantics (cache reads and cache writes are part of it, see
 * providers/anthropic/usage.ts), so each part is charged once at its own rate: the uncached rest at
 * the input price, the cached parts at theirs. Reasoning tokens are part of the completion count.
 */
import type { UsagePrice } from '../../contracts/events/index.ts';
import type { TokenCounts } from '../providers/provider.ts';

/** A decimal price to an integer count of `unit` (1e6: micro-dollars; 1e9: nano-dollars). */
function toInteger(usd: number, unit: number): bigint {
  return BigInt(Math.round(usd * unit));
}

const PICO_PER_NANO = 1000n;

export function costNanoUsd(price: UsagePrice, tokens: TokenCounts): number {
  const cacheRead = Math.min(tokens.cachedTokens, tokens.promptTokens);
  const cacheWrite = Math.min(tokens.cacheWriteTokens, tokens.promptTokens - cacheRead);
  const uncached = tokens.promptTokens - cacheRead - cacheWrite;
  const pico =
    BigInt(uncached) * toInteger(price.inputPerMillion, 1e6) +
    BigInt(cacheRead) * toInteger(price.cacheReadPerMillion, 1e6) +
    BigInt(cacheWrite) * toInteger(price.cacheWritePerMillion, 1e6) +
    BigInt(tokens.completionTokens) * toInteger(price.outputPerMillion, 1e6) +
    toInteger(price.perRequest, 1e9) * PICO_PER_NANO;
  // Half up: costs are never negative.
  return Number((pico + PICO_PER_NANO / 2n) / PICO_PER_NANO);
}
