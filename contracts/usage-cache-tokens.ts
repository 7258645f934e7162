/**
 * @module contracts/usage-cache-tokens
 * The prompt tokens a provider's cache served or stored, as the usage overview and log show them
 * beside `prompt_tokens` (of which both are parts). Optional: servers before them did not send them.
 */
import { z } from 'zod';

/** In the overview's totals, series and `by_model`; not in `by_token` (the per-key rollups keep neither). */
export const cacheTokenTotals = {
  /** prompt tokens read from a provider's cache */
  cached_tokens: z.number().optional(),
  /** prompt tokens written to a provider's cache */
  cache_write_tokens: z.number().optional(),
};
