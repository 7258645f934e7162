/**
 * @module gateway/console-api/model-catalog
 * The models a person may call and what they cost: every model an enabled channel serves (narrowed to
 * one key's allowlist when asked), with the price a request would be charged at today. A model's
 * price can depend on the channel that serves it (the price database knows a provider's own price),
 * so each distinct price is listed, cheapest input first.
 */
import type { ModelCatalogEntry, ModelPriceView } from '../../contracts/console-api-models.ts';
import type { UsagePrice } from '../../contracts/events/index.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import type { PriceBook } from '../pricing/price-book.ts';

function priceView(price: UsagePrice): ModelPriceView {
  return {
    source: price.source,
    input_per_million: price.inputPerMillion,
    output_per_million: price.outputPerMillion,
    cache_read_per_million: price.cacheReadPerMillion,
    cache_write_per_million: price.cacheWritePerMillion,
    cache_write_1h_per_million: price.cacheWrite1hPerMillion ?? price.cacheWritePerMillion,
    per_request: price.perRequest,
  };
}

/** @param allowed a key's model allowlist (null: every model) */
export function modelCatalog(
  channels: readonly ChannelDocument[],
  prices: PriceBook | undefined,
  allowed: readonly string[] | null,
  at: Date,
): ModelCatalogEntry[] {
  const servedBy = new Map<string, ChannelDocument[]>();
  for (const channel of channels) {
    if (!channel.enabled) continue;
    for (const model of channel.models) {
      if (allowed && !allowed.includes(model)) continue;
      servedBy.set(model, [...(servedBy.get(model) ?? []), channel]);
    }
  }
  return [...servedBy.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([model, serving]) => {
      const distinct = new Map<string, ModelPriceView>();
      let unpriced = 0;
      for (const channel of serving) {
        const price = prices?.priceOf({
          model,
          upstreamModel: channel.modelMapping[model] ?? model,
          channelType: channel.type,
          baseUrl: channel.baseUrl,
          // The base tier: what a prompt of ordinary length pays.
          promptTokens: 0,
          at,
        });
        if (!price) {
          unpriced += 1;
          continue;
        }
        const view = priceView(price);
        distinct.set(JSON.stringify({ ...view, source: null }), view);
      }
      return {
        model,
        channels: serving.length,
        prices: [...distinct.values()].sort((a, b) => a.input_per_million - b.input_per_million),
        unpriced_channels: unpriced,
      };
    });
}
