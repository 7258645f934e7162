/**
 * @module gateway/pricing/price-book
 * The price of a request's model: the operator's (`prices` in GATEWAY_CONFIG, keyed by the model the
 * client asked for) when there is one, else the price database's (by the upstream model name and the
 * channel), else none: the request is unpriced and its cost is null, never a guess.
 */
import type { ChannelType, UsagePrice } from '../../contracts/events/index.ts';
import type { ModelPriceConfig } from '../../contracts/gateway-config.ts';
import type { TokenCounts } from '../providers/provider.ts';
import { costNanoUsd } from './cost.ts';
import { PriceDatabase } from './price-database.ts';

export interface PriceQuery {
  /** the model the client asked for */
  model: string;
  /** the model name sent upstream, after the channel's mapping; null when no channel was reached */
  upstreamModel: string | null;
  channelType: ChannelType | null;
  baseUrl: string | null;
  /** every prompt token, cached or not: what selects a database price's tier */
  promptTokens: number;
  at: Date;
}

export interface PricedUsage {
  costNanoUsd: number | null;
  price: UsagePrice | null;
}

const unpriced: PricedUsage = { costNanoUsd: null, price: null };

export function priceFromConfig(model: string, config: ModelPriceConfig): UsagePrice {
  const input = config.input_per_million ?? 0;
  const cacheWrite = config.cache_write_per_million ?? input;
  return {
    source: 'config',
    model,
    inputPerMillion: input,
    outputPerMillion: config.output_per_million ?? 0,
    cacheReadPerMillion: config.cache_read_per_million ?? input,
    cacheWritePerMillion: cacheWrite,
    cacheWrite1hPerMillion: config.cache_write_1h_per_million ?? cacheWrite,
    perRequest: config.per_request ?? 0,
  };
}

export class PriceBook {
  readonly #configured: ReadonlyMap<string, UsagePrice>;
  readonly #database: PriceDatabase | null;

  /** @param useDatabase false prices only what the config names (tests, or operators who want that) */
  constructor(prices: Readonly<Record<string, ModelPriceConfig>> = {}, { useDatabase = true } = {}) {
    this.#configured = new Map(
      Object.entries(prices).map(([model, config]) => [model, priceFromConfig(model, config)]),
    );
    this.#database = useDatabase ? new PriceDatabase() : null;
  }

  priceOf(query: PriceQuery): UsagePrice | null {
    const configured = this.#configured.get(query.model);
    if (configured) return configured;
    if (!this.#database || query.upstreamModel === null || query.channelType === null || query.baseUrl === null) {
      return null;
    }
    return this.#database.priceOf({
      upstreamModel: query.upstreamModel,
      channelType: query.channelType,
      baseUrl: query.baseUrl,
      promptTokens: query.promptTokens,
      at: query.at,
    });
  }

  /** The cost of one request's usage with the price in force, and that price. */
  price(query: PriceQuery, tokens: TokenCounts): PricedUsage {
    const price = this.priceOf(query);
    return price ? { costNanoUsd: costNanoUsd(price, tokens), price } : unpriced;
  }
}
