/**
 * @module gateway/pricing/cost
 * The cost of one request in integer nano-dollars, from its token counts and a price. Prices are
 * decimal USD (per million tokens, per request); each is first turned into an integer, so the sum is
 * exact and rounds once, to the nearest nano-dollar, whatever the order of the parts:
 * a price per million tokens in micro-dollars is a price per token in pico-dollars (1e-12 USD).
 *
 * The prompt count follows OpenAI's semantics (cache reads and cache writes are part of it, see
 * providers/anthropic/usage.ts), so each part is charged once at its own rate: the uncached rest at
 * the input price, the cached parts at theirs, one-hour cache writes at the one-hour price and the
 * other writes at the five-minute one. Reasoning tokens are part of the completion count.
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
  const hourWrite = Math.min(tokens.cacheWrite1hTokens ?? 0, cacheWrite);
  const minuteWrite = cacheWrite - hourWrite;
  const uncached = tokens.promptTokens - cacheRead - cacheWrite;
  // A price without a one-hour rate (an event that carries none) charges those writes as the others.
  const hourPrice = price.cacheWrite1hPerMillion ?? price.cacheWritePerMillion;
  const input = Math.round(price.inputPerMillion * 1e6);
  const read = Math.round(price.cacheReadPerMillion * 1e6);
  const write = Math.round(price.cacheWritePerMillion * 1e6);
  const hour = Math.round(hourPrice * 1e6);
  const output = Math.round(price.outputPerMillion * 1e6);
  const perRequest = Math.round(price.perRequest * 1e9);
  // Integers below 2^53 add and multiply exactly as numbers: the common case, without BigInt's
  // allocations on the relay's path. Each term is bounded by its own, so the check is sound.
  const pico =
    uncached * input + cacheRead * read + minuteWrite * write + hourWrite * hour + tokens.completionTokens * output;
  if (pico + perRequest * 1000 <= Number.MAX_SAFE_INTEGER) {
    const total = pico + perRequest * 1000;
    const remainder = total % 1000;
    // Half up (costs are never negative); the division is exact, as total - remainder is a multiple.
    return (total - remainder) / 1000 + (remainder >= 500 ? 1 : 0);
  }
  const exact =
    BigInt(uncached) * toInteger(price.inputPerMillion, 1e6) +
    BigInt(cacheRead) * toInteger(price.cacheReadPerMillion, 1e6) +
    BigInt(minuteWrite) * toInteger(price.cacheWritePerMillion, 1e6) +
    BigInt(hourWrite) * toInteger(hourPrice, 1e6) +
    BigInt(tokens.completionTokens) * toInteger(price.outputPerMillion, 1e6) +
    toInteger(price.perRequest, 1e9) * PICO_PER_NANO;
  return Number((exact + PICO_PER_NANO / 2n) / PICO_PER_NANO);
}
