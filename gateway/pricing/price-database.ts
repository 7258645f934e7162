/**
 * @module gateway/pricing/price-database
 * Default prices from `@pydantic/genai-prices` (the maintained price database, bundled with the
 * package: no network), matched by the model name a channel sends upstream and the upstream's
 * provider: the one its base URL names when the database knows it (an OpenAI-compatible channel
 * pointed at DeepSeek, Groq or OpenRouter), else the channel kind's.
 *
 * Matching a name costs the library about half a millisecond, so each match is kept; what is left per
 * request is choosing the price in force at the request's time (some models' prices change on a date
 * or by time of day) and its tier (some providers charge a long prompt more for every token).
 */
import { calcPrice, findProvider, type ModelInfo, type ModelPrice } from '@pydantic/genai-prices';
import type { ChannelType, UsagePrice } from '../../contracts/events/index.ts';

const providerOfKind: Record<ChannelType, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  azure: 'azure',
  bedrock: 'aws',
  gemini: 'google',
};

/** Upstream model names are few (the channels' models after mapping); the bound is against surprises. */
const MAX_MATCHES = 4096;

interface Match {
  /** `provider:model` in the database's ids */
  name: string;
  model: ModelInfo;
}

export interface DatabaseQuery {
  upstreamModel: string;
  channelType: ChannelType;
  baseUrl: string;
  /** every prompt token, cached or not: what selects a tier */
  promptTokens: number;
  at: Date;
}

export class PriceDatabase {
  readonly #matches = new Map<string, Match | null>();
  readonly #flat = new WeakMap<ModelPrice, UsagePrice | null>();

  priceOf(query: DatabaseQuery): UsagePrice | null {
    const match = this.#match(query.upstreamModel, query.channelType, query.baseUrl);
    if (!match) return null;
    const price = priceAt(match.model, query.at);
    // A price without tiers is the same for every request: flattened once.
    const flat = this.#flat.get(price);
    if (flat !== undefined) return flat;
    const flattened = flatten(match.name, price, query.promptTokens);
    if (!Object.values(price).some((value) => typeof value === 'object')) this.#flat.set(price, flattened);
    return flattened;
  }

  #match(upstreamModel: string, channelType: ChannelType, baseUrl: string): Match | null {
    const key = `${channelType}\u0000${baseUrl}\u0000${upstreamModel}`;
    let match = this.#matches.get(key);
    if (match === undefined) {
      match = lookUp(upstreamModel, channelType, baseUrl);
      if (this.#matches.size >= MAX_MATCHES) this.#matches.clear();
      this.#matches.set(key, match);
    }
    return match;
  }
}

function lookUp(upstreamModel: string, channelType: ChannelType, baseUrl: string): Match | null {
  const attempts = [];
  const byUrl = safely(() => findProvider({ providerApiUrl: baseUrl }));
  if (byUrl) attempts.push({ provider: byUrl });
  attempts.push({ providerId: providerOfKind[channelType] });
  for (const options of attempts) {
    const result = safely(() => calcPrice({ input_tokens: 0, output_tokens: 0 }, upstreamModel, options));
    if (result) return { name: `${result.provider.id}:${result.model.id}`, model: result.model };
  }
  return null;
}

/** The library throws on data it finds inconsistent; for a price, that is no price. */
function safely<T>(work: () => T): T | undefined {
  try {
    return work() ?? undefined;
  } catch {
    return undefined;
  }
}

/** The model's prices in force at `at`: the last listed whose constraint holds, else the first. */
function priceAt(model: ModelInfo, at: Date): ModelPrice {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let index = model.prices.length - 1; index >= 0; index--) {
    const { constraint, prices } = model.prices[index]!;
    if (constraint === undefined) return prices;
    if (constraint.type === 'start_date' && at >= new Date(constraint.start_date)) return prices;
    if (constraint.type === 'time_of_date') {
      const now = (at.getTime() / 1000) % 86_400;
      const start = secondOfDay(constraint.start_time);
      const end = secondOfDay(constraint.end_time);
      if (start !== null && end !== null && (end < start ? now >= start || now < end : now >= start && now < end)) {
        return prices;
      }
    }
  }
  return model.prices[0]!.prices;
}

/** `HH:MM:SS` with `Z` or an offset, as seconds after midnight UTC; null when unreadable. */
function secondOfDay(time: string): number | null {
  const parts = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!parts) return null;
  const local = Number(parts[1]) * 3600 + Number(parts[2]) * 60 + Number(parts[3]);
  const offset = parts[4] === 'Z' ? 0 : (parts[5] === '-' ? -1 : 1) * (Number(parts[6]) * 3600 + Number(parts[7]) * 60);
  return (((local - offset) % 86_400) + 86_400) % 86_400;
}

/** One rate: a plain number, or the tier a prompt of this many tokens falls in (all its tokens pay it). */
function rateOf(value: ModelPrice[string], promptTokens: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  let rate = value.base;
  for (const tier of [...value.tiers].sort((left, right) => left.start - right.start)) {
    if (promptTokens > tier.start) rate = tier.price;
  }
  return rate;
}

/**
 * The database's price as the event records it, or null when it prices none of what the gateway
 * counts (tokens or requests; audio or image units alone are not enough). An absent cache price is
 * the input price, as the library itself charges it; an absent one-hour write price is the
 * (five-minute) write price, as the library charges one-hour writes without it.
 */
function flatten(name: string, price: ModelPrice, promptTokens: number): UsagePrice | null {
  const input = rateOf(price['input_mtok'], promptTokens);
  const output = rateOf(price['output_mtok'], promptTokens);
  const perThousandRequests = rateOf(price['requests_kcount'], promptTokens);
  if (input === undefined && output === undefined && perThousandRequests === undefined) return null;
  const cacheWrite = rateOf(price['cache_write_mtok'], promptTokens) ?? input ?? 0;
  return {
    source: 'genai-prices',
    model: name,
    inputPerMillion: input ?? 0,
    outputPerMillion: output ?? 0,
    cacheReadPerMillion: rateOf(price['cache_read_mtok'], promptTokens) ?? input ?? 0,
    cacheWritePerMillion: cacheWrite,
    cacheWrite1hPerMillion: rateOf(price['cache_write_1h_mtok'], promptTokens) ?? cacheWrite,
    perRequest: (perThousandRequests ?? 0) / 1000,
  };
}
