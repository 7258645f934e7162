/**
 * @module contracts/usage-log-filters
 * The usage log's filters by what a request was: its endpoint, whether it was streamed, and the error
 * type it ended with. Part of `GET /api/usage/logs`'s query (console-api.ts); each store turns them
 * into its own conditions (stores/embedded/usage-log-filters.ts, stores/cluster/clickhouse-usage-log-filters.ts).
 */
import { z } from 'zod';
import { endpointSchema } from './events/traffic-events.ts';

/** The endpoints a request can be logged under, as the log writes them (`chat.completions`, `messages`, …). */
export const usageLogEndpoints = endpointSchema.options;

export const usageLogFilterFields = {
  /** the endpoint the request came in on, whole */
  endpoint: z.enum(usageLogEndpoints).optional(),
  /** `true`: streamed replies only; `false`: the others */
  streamed: z.enum(['true', 'false']).optional(),
  /** the error type the request ended with, whole (`rate_limit_error`, `budget_exceeded`, …) */
  error_type: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be an error type such as rate_limit_error or budget_exceeded')
    .optional(),
};

export type UsageLogFilters = {
  endpoint?: z.infer<typeof usageLogFilterFields.endpoint>;
  streamed?: z.infer<typeof usageLogFilterFields.streamed>;
  error_type?: z.infer<typeof usageLogFilterFields.error_type>;
};
