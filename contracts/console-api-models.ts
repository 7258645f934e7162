/**
 * @module contracts/console-api-models
 * The console API's models page: what a person may call and its price (`GET /api/models/prices`).
 */
import { z } from 'zod';

/** A price in USD per million tokens (and per request), as the cost of a call is computed. */
export const modelPriceViewSchema = z.object({
  /** `config`: the operator's price; `genai-prices`: the bundled price database's */
  source: z.enum(['config', 'genai-prices']),
  input_per_million: z.number(),
  output_per_million: z.number(),
  cache_read_per_million: z.number(),
  /** a cache write kept five minutes (Anthropic's default) */
  cache_write_per_million: z.number(),
  /** a cache write kept an hour; the five-minute price where the price names none */
  cache_write_1h_per_million: z.number(),
  per_request: z.number(),
});

/** GET /api/models/prices: a model the caller may call and what it costs. */
export const modelCatalogEntrySchema = z.object({
  model: z.string(),
  /** enabled channels serving it */
  channels: z.number().int(),
  /** each distinct price among those channels, cheapest input first; empty when none is priced */
  prices: z.array(modelPriceViewSchema),
  /** channels serving it with no known price: their calls are recorded with no cost */
  unpriced_channels: z.number().int(),
});

/** GET /api/models/prices?token_id=: narrowed to what that key may call. */
export const modelCatalogQuerySchema = z.object({ token_id: z.string().min(1).optional() });

export type ModelPriceView = z.infer<typeof modelPriceViewSchema>;
export type ModelCatalogEntry = z.infer<typeof modelCatalogEntrySchema>;
