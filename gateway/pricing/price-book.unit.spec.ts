/**
 * Which price a request gets: the operator's (keyed by the model the client asked for) over the
 * database's (by the upstream model name and the channel), else none. Database figures are those of
 * the pinned @pydantic/genai-prices 0.1.8.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfigFileSchema } from '../../contracts/gateway-config.ts';
import { PriceBook, type PriceQuery } from './price-book.ts';

const at = new Date('2026-01-15T12:00:00.000Z');

function query(fields: Partial<PriceQuery>): PriceQuery {
  return {
    model: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelType: 'openai',
    baseUrl: 'http://127.0.0.1:9999/v1',
    promptTokens: 100,
    at,
    ...fields,
  };
}

describe('the price database', () => {
  const book = new PriceBook();

  it('prices an OpenAI model by its upstream name, a dated variant too', () => {
    const expected = {
      source: 'genai-prices',
      model: 'openai:gpt-4o-mini',
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
      cacheReadPerMillion: 0.075,
      // not listed: the input price, as the database itself charges it
      cacheWritePerMillion: 0.15,
      cacheWrite1hPerMillion: 0.15,
      perRequest: 0,
    };
    expect(book.priceOf(query({}))).toEqual(expected);
    expect(book.priceOf(query({ model: 'mini', upstreamModel: 'gpt-4o-mini-2024-07-18' }))).toEqual(expected);
  });

  it("matches the name the channel sends, not the client's alias", () => {
    expect(book.priceOf(query({ model: 'fast', upstreamModel: 'gpt-4o-mini' }))?.model).toBe('openai:gpt-4o-mini');
    expect(book.priceOf(query({ model: 'gpt-4o-mini', upstreamModel: 'in-house-model' }))).toBeNull();
  });

  it('prices an Anthropic model with its cache prices, and its long-prompt tier', () => {
    const anthropic = { channelType: 'anthropic' as const, baseUrl: 'https://api.anthropic.com' };
    const short = book.priceOf(query({ ...anthropic, model: 'sonnet', upstreamModel: 'claude-sonnet-4-5-20250929' }));
    expect(short).toMatchObject({
      model: 'anthropic:claude-sonnet-4-5',
      inputPerMillion: 3,
      outputPerMillion: 15,
      cacheReadPerMillion: 0.3,
      cacheWritePerMillion: 3.75,
      cacheWrite1hPerMillion: 6,
    });
    const long = book.priceOf(
      query({ ...anthropic, upstreamModel: 'claude-sonnet-4-5-20250929', promptTokens: 200_001 }),
    );
    expect(long).toMatchObject({
      inputPerMillion: 6,
      outputPerMillion: 22.5,
      cacheReadPerMillion: 0.6,
      cacheWritePerMillion: 7.5,
      cacheWrite1hPerMillion: 12,
    });
  });

  it('does not find an OpenAI model on an Anthropic channel', () => {
    expect(book.priceOf(query({ channelType: 'anthropic', baseUrl: 'https://api.anthropic.com' }))).toBeNull();
  });

  it("names the provider by the channel's base URL when the database knows it", () => {
    const deepseek = book.priceOf(
      query({ model: 'deepseek-chat', upstreamModel: 'deepseek-chat', baseUrl: 'https://api.deepseek.com/v1' }),
    );
    expect(deepseek).toMatchObject({ model: 'deepseek:deepseek-chat', source: 'genai-prices' });
  });

  it('takes the price in force at the time of the request', () => {
    const o3 = (when: string) => book.priceOf(query({ model: 'o3', upstreamModel: 'o3', at: new Date(when) }));
    expect(o3('2025-06-01T00:00:00Z')).toMatchObject({ inputPerMillion: 10, outputPerMillion: 40 });
    expect(o3('2025-06-11T00:00:00Z')).toMatchObject({ inputPerMillion: 2, outputPerMillion: 8 });
  });

  it('has no price for an unknown model, or a request that reached no channel', () => {
    expect(book.priceOf(query({ model: 'x', upstreamModel: 'no-such-model-anywhere' }))).toBeNull();
    expect(book.priceOf(query({ upstreamModel: null, channelType: null, baseUrl: null }))).toBeNull();
    const tokens = { promptTokens: 5, completionTokens: 5, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    expect(book.price(query({ upstreamModel: 'no-such-model-anywhere' }), tokens)).toEqual({
      costNanoUsd: null,
      price: null,
    });
  });
});

describe('prices from GATEWAY_CONFIG', () => {
  // Exactly as the issue and the README write them.
  const config = gatewayConfigFileSchema.parse({
    prices: {
      'gpt-4o-mini': { input_per_million: 0.15, output_per_million: 0.6 },
      'claude-sonnet-4-5': {
        input_per_million: 3,
        output_per_million: 15,
        cache_read_per_million: 0.3,
        cache_write_per_million: 3.75,
      },
      'claude-opus-4-1': { input_per_million: 15, cache_write_per_million: 18.75, cache_write_1h_per_million: 30 },
      'search-model': { per_request: 0.005 },
    },
  });
  const book = new PriceBook(config.prices);

  it('win over the database, keyed by the model the client asked for', () => {
    const configured = book.priceOf(query({ model: 'claude-sonnet-4-5', upstreamModel: 'gpt-4o-mini' }));
    expect(configured).toEqual({
      source: 'config',
      model: 'claude-sonnet-4-5',
      inputPerMillion: 3,
      outputPerMillion: 15,
      cacheReadPerMillion: 0.3,
      cacheWritePerMillion: 3.75,
      // not given: the five-minute write price
      cacheWrite1hPerMillion: 3.75,
      perRequest: 0,
    });
    // The same upstream name asked for under another name falls through to the database.
    expect(book.priceOf(query({ model: 'other', upstreamModel: 'gpt-4o-mini' }))?.source).toBe('genai-prices');
  });

  it('charge cache tokens at the input price when no cache price is given', () => {
    expect(book.priceOf(query({}))).toMatchObject({
      cacheReadPerMillion: 0.15,
      cacheWritePerMillion: 0.15,
      cacheWrite1hPerMillion: 0.15,
    });
  });

  it('price one-hour cache writes apart when the config gives their price', () => {
    const opus = book.priceOf(query({ model: 'claude-opus-4-1', upstreamModel: null }));
    expect(opus).toMatchObject({ cacheWritePerMillion: 18.75, cacheWrite1hPerMillion: 30 });
    const tokens = {
      promptTokens: 1000,
      completionTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 1000,
      cacheWrite1hTokens: 400,
      reasoningTokens: 0,
    };
    // 600 × 18.75 + 400 × 30 micro-dollars
    expect(book.price(query({ model: 'claude-opus-4-1', upstreamModel: null }), tokens).costNanoUsd).toBe(23_250_000);
  });

  it('price a model billed per call', () => {
    const tokens = {
      promptTokens: 900,
      completionTokens: 10,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    expect(book.price(query({ model: 'search-model', upstreamModel: null }), tokens).costNanoUsd).toBe(5_000_000);
  });

  it('alone price a book without the database', () => {
    const only = new PriceBook(config.prices, { useDatabase: false });
    expect(only.priceOf(query({ model: 'gpt-4o-mini' }))?.source).toBe('config');
    expect(only.priceOf(query({ model: 'gpt-4o', upstreamModel: 'gpt-4o' }))).toBeNull();
  });

  it('refuse a misspelt field, a negative price and an empty entry, naming them', () => {
    const typo = gatewayConfigFileSchema.safeParse({ prices: { m: { input_per_millon: 1 } } });
    expect(typo.success).toBe(false);
    expect(JSON.stringify(typo.error?.issues)).toContain('input_per_millon');
    const negative = gatewayConfigFileSchema.safeParse({ prices: { m: { input_per_million: -1 } } });
    expect(JSON.stringify(negative.error?.issues)).toContain('must not be negative');
    expect(gatewayConfigFileSchema.safeParse({ prices: { m: {} } }).success).toBe(false);
  });
});
