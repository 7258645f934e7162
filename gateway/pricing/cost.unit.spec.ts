/**
 * The cost arithmetic: exact integers of nano-dollars against hand computations, each cached part
 * charged once at its own rate, one rounding per request, and no float drift in sums.
 */
import { describe, expect, it } from 'vitest';
import type { UsagePrice } from '../../contracts/events/index.ts';
import type { TokenCounts } from '../providers/provider.ts';
import { costNanoUsd } from './cost.ts';

function price(fields: Partial<UsagePrice>): UsagePrice {
  return {
    source: 'config',
    model: 'm',
    inputPerMillion: 0,
    outputPerMillion: 0,
    cacheReadPerMillion: 0,
    cacheWritePerMillion: 0,
    perRequest: 0,
    ...fields,
  };
}

function tokens(fields: Partial<TokenCounts>): TokenCounts {
  return { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, ...fields };
}

const miniPrice = price({ inputPerMillion: 0.15, outputPerMillion: 0.6, cacheReadPerMillion: 0.075 });
const sonnetPrice = price({
  inputPerMillion: 3,
  outputPerMillion: 15,
  cacheReadPerMillion: 0.3,
  cacheWritePerMillion: 3.75,
});

describe('costNanoUsd', () => {
  it('charges uncached prompt, cached prompt and completion each at its rate (OpenAI usage)', () => {
    // 60 uncached × 0.15 + 40 cached × 0.075 + 20 completion × 0.60 = 9 + 3 + 12 micro-dollars
    expect(costNanoUsd(miniPrice, tokens({ promptTokens: 100, cachedTokens: 40, completionTokens: 20 }))).toBe(24_000);
  });

  it('charges an Anthropic prompt once: input, cache read and cache creation are parts of it', () => {
    // Anthropic sent input_tokens 50, cache_read 1,000, cache_creation 200, output 80; the gateway
    // counts prompt = 1,250 (providers/anthropic/usage.ts).
    const counted = tokens({ promptTokens: 1250, cachedTokens: 1000, cacheWriteTokens: 200, completionTokens: 80 });
    // 50 × 3 + 1,000 × 0.3 + 200 × 3.75 + 80 × 15 = 150 + 300 + 750 + 1,200 micro-dollars
    expect(costNanoUsd(sonnetPrice, counted)).toBe(2_400_000);
  });

  it('charges one-hour cache writes at the one-hour price and the rest of the writes at the five-minute one', () => {
    const hourly = { ...sonnetPrice, cacheWrite1hPerMillion: 6 };
    // Anthropic sent input 50, cache_read 1,000, cache_creation 200 of which ephemeral_1h 120, output 80.
    const counted = tokens({
      promptTokens: 1250,
      cachedTokens: 1000,
      cacheWriteTokens: 200,
      cacheWrite1hTokens: 120,
      completionTokens: 80,
    });
    // 50 × 3 + 1,000 × 0.3 + 80 × 3.75 + 120 × 6 + 80 × 15 = 150 + 300 + 300 + 720 + 1,200 micro-dollars
    expect(costNanoUsd(hourly, counted)).toBe(2_670_000);
    // Every write for an hour, on the request the check tried: 25 % under at the five-minute price.
    const allHour = tokens({ promptTokens: 1000, cacheWriteTokens: 1000, cacheWrite1hTokens: 1000 });
    expect(costNanoUsd(hourly, allHour)).toBe(6_000_000);
    expect(costNanoUsd(sonnetPrice, allHour)).toBe(3_750_000);
  });

  it('charges a price recorded without a one-hour rate its one write rate, and never more hour writes than writes', () => {
    const counted = tokens({ promptTokens: 300, cacheWriteTokens: 100, cacheWrite1hTokens: 100 });
    expect(costNanoUsd(sonnetPrice, counted)).toBe(200 * 3000 + 100 * 3750);
    const hostile = tokens({ promptTokens: 300, cacheWriteTokens: 100, cacheWrite1hTokens: 500 });
    expect(costNanoUsd({ ...sonnetPrice, cacheWrite1hPerMillion: 6 }, hostile)).toBe(200 * 3000 + 100 * 6000);
  });

  it('counts reasoning tokens inside the completion, not on top of it', () => {
    const withReasoning = tokens({ promptTokens: 10, completionTokens: 100, reasoningTokens: 60 });
    expect(costNanoUsd(miniPrice, withReasoning)).toBe(
      costNanoUsd(miniPrice, { ...withReasoning, reasoningTokens: 0 }),
    );
    expect(costNanoUsd(miniPrice, withReasoning)).toBe(10 * 150 + 100 * 600);
  });

  it('adds the per-request price', () => {
    const perCall = price({ perRequest: 0.01, inputPerMillion: 1 });
    expect(costNanoUsd(perCall, tokens({ promptTokens: 3 }))).toBe(10_000_000 + 3_000);
    expect(costNanoUsd(price({ perRequest: 0.0004 }), tokens({ promptTokens: 5000, completionTokens: 9 }))).toBe(
      400_000,
    );
  });

  it('is exact where floating point is not', () => {
    // 3 × 0.1 in floats is 0.30000000000000004; the prices become integers first.
    expect(costNanoUsd(price({ inputPerMillion: 0.1 }), tokens({ promptTokens: 3 }))).toBe(300);
    expect(costNanoUsd(price({ outputPerMillion: 0.07 }), tokens({ completionTokens: 7 }))).toBe(490);
    // The largest counts the gateway believes, at the dearest prices listed: still exact integers.
    const dear = price({ inputPerMillion: 150, outputPerMillion: 600, perRequest: 1 });
    const huge = costNanoUsd(dear, tokens({ promptTokens: 10_000_000, completionTokens: 10_000_000 }));
    expect(huge).toBe(1_500_000_000_000 + 6_000_000_000_000 + 1_000_000_000);
    expect(Number.isSafeInteger(huge)).toBe(true);
    // Past 2^53 pico-dollars the sum is taken in BigInt, still exact.
    const dearest = price({ inputPerMillion: 600, outputPerMillion: 600, cacheReadPerMillion: 0.000001 });
    const past = tokens({ promptTokens: 10_000_000, cachedTokens: 1, completionTokens: 10_000_000 });
    expect(costNanoUsd(dearest, past)).toBe(12_000_000_000_000 - 600_000 + 0);
  });

  it('rounds once per request, half up, to the nano-dollar', () => {
    const tiny = price({ inputPerMillion: 0.0005 }); // 500 pico-dollars a token
    expect(costNanoUsd(tiny, tokens({ promptTokens: 1 }))).toBe(1);
    expect(costNanoUsd(price({ inputPerMillion: 0.000499 }), tokens({ promptTokens: 1 }))).toBe(0);
    expect(costNanoUsd(tiny, tokens({ promptTokens: 3 }))).toBe(2);
  });

  it('never charges more cached tokens than the prompt holds', () => {
    const hostile = tokens({ promptTokens: 10, cachedTokens: 50, cacheWriteTokens: 50 });
    expect(costNanoUsd(sonnetPrice, hostile)).toBe(10 * 300);
    const split = tokens({ promptTokens: 10, cachedTokens: 4, cacheWriteTokens: 50 });
    expect(costNanoUsd(sonnetPrice, split)).toBe(4 * 300 + 6 * 3750);
  });

  it('sums to the hand total over many requests, with no drift', () => {
    let sum = 0;
    let promptUncached = 0;
    let cached = 0;
    let completion = 0;
    for (let index = 0; index < 1000; index++) {
      const counted = tokens({ promptTokens: 17 + index, cachedTokens: index % 7, completionTokens: 3 + (index % 13) });
      sum += costNanoUsd(miniPrice, counted);
      promptUncached += counted.promptTokens - counted.cachedTokens;
      cached += counted.cachedTokens;
      completion += counted.completionTokens;
    }
    // 150, 75 and 600 nano-dollars a token: every request's cost is a whole number, so the sums agree.
    expect(sum).toBe(promptUncached * 150 + cached * 75 + completion * 600);
  });
});
