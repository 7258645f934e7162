/**
 * @module contracts/events/traffic-events
 * One `request.completed` for every request that reached a gateway, refused ones included, and the
 * usage of every request that used tokens. Up to version 1 of `request.completed` the usage was a
 * second event, `usage.recorded`, carrying the request id so that projections could join the two;
 * since version 2 the request's event carries its usage itself (one event per request: see
 * traffic-facts.ts for how readers still see the two facts), and `usage.recorded` stays readable
 * for the logs that hold it.
 */
import { z } from 'zod';
import { requestAttributionSchema } from '../attribution.ts';
import { envelope } from './envelope.ts';

/**
 * `embeddings`, `messages.count_tokens`, `responses`, `responses.compact`, `responses.input_tokens` and
 * the `gemini.*` methods (Google's Gemini API as clients call it, named by its URL's method) were added
 * to version 1 as new values: no older event holds them, but a projector built before them refuses an
 * event that does, so in cluster mode the projectors are upgraded before the gateways that write them.
 * Both stores keep the endpoint as text.
 */
export const endpointSchema = z.enum([
  'chat.completions',
  'messages',
  'responses',
  'embeddings',
  'messages.count_tokens',
  'gemini.generateContent',
  'gemini.countTokens',
  'gemini.embedContent',
  'gemini.batchEmbedContents',
  'responses.compact',
  'responses.input_tokens',
]);

export const upstreamAttemptSchema = z.object({
  channelId: z.string(),
  /** which of the channel's upstream keys (0-based), never the key itself */
  keyIndex: z.number().int().min(0),
  /** the upstream's HTTP status; 0 when it was not reached or timed out */
  status: z.number().int(),
  /** null for the attempt that answered; else `unreachable`, `timeout`, `rate_limited`, `server_error`, ... */
  error: z.string().nullable(),
  latencyMs: z.number().min(0),
});

export const requestCompletedV1 = envelope(
  'request.completed',
  1,
  z.object({
    requestId: z.string(),
    /** null when the request was refused before a key was recognised */
    userId: z.string().nullable(),
    tokenId: z.string().nullable(),
    endpoint: endpointSchema,
    modelRequested: z.string().nullable(),
    /** the model the upstream named in its reply (may be a dated variant) */
    modelServed: z.string().nullable(),
    channelId: z.string().nullable(),
    stream: z.boolean(),
    /** HTTP status the client saw (200 for a stream that later failed in-band; see errorType) */
    status: z.number().int(),
    errorType: z.string().nullable(),
    errorMessage: z.string().nullable(),
    startedAt: z.iso.datetime(),
    latencyMs: z.number().min(0),
    firstTokenMs: z.number().min(0).nullable(),
    clientAborted: z.boolean(),
    /**
     * The retry chain: every upstream attempt in order, the last one the answer the client got.
     * Added after version 1 was published as an OPTIONAL field of the same version: older events
     * (and requests refused before routing) have none, and older readers ignore it.
     */
    attempts: z.array(upstreamAttemptSchema).optional(),
    /**
     * The caller's own `X-Request-Id`, when it sent a valid one: kept for tracing, never used as
     * `requestId`, since a caller's ids can repeat and every request must count once. Added as an
     * OPTIONAL field of version 1, like `attempts`.
     */
    clientRequestId: z.string().optional(),
    /**
     * Who and what the request was for (end user, session, metadata: contracts/attribution.ts), when
     * the client or its key named any. An OPTIONAL field of version 1, like `attempts`: older events
     * have none, and older readers ignore it.
     */
    attribution: requestAttributionSchema.optional(),
  }),
);

export const usageSourceSchema = z.enum(['upstream', 'estimated']);

export const usageRecordedV1 = envelope(
  'usage.recorded',
  1,
  z.object({
    requestId: z.string(),
    userId: z.string(),
    tokenId: z.string(),
    channelId: z.string().nullable(),
    /** the model the client asked for: what users filter and allowlists name */
    model: z.string(),
    startedAt: z.iso.datetime(),
    /** OpenAI semantics: includes cached and cache-write tokens */
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
    cachedTokens: z.number().int().min(0),
    cacheWriteTokens: z.number().int().min(0),
    reasoningTokens: z.number().int().min(0),
    source: usageSourceSchema,
    /**
     * The part of `cacheWriteTokens` written to a one-hour cache (the rest are five-minute writes),
     * priced at `cacheWrite1hPerMillion`. Added as an OPTIONAL field of version 1: absent when there
     * were none, and in older events, whose writes were all priced at `cacheWritePerMillion`.
     */
    cacheWrite1hTokens: z.number().int().min(0).optional(),
    /**
     * Why the upstream's own usage was not believed (a count that was not a whole number from 0 to
     * 10 million, a string, an object...), when the gateway counted the tokens instead: `source` is
     * then `estimated`. Added as an OPTIONAL field of version 1: older events have none.
     */
    usageRefused: z.string().optional(),
  }),
);

/**
 * The price a request's cost was computed with, as it stood when its usage was recorded: kept in the
 * event, so that a price changed later never rewrites the cost of past requests. All in USD.
 */
export const usagePriceSchema = z.object({
  /** `config`: the operator's `prices` in GATEWAY_CONFIG; `genai-prices`: the bundled price database */
  source: z.enum(['config', 'genai-prices']),
  /** what the price was found under: the config's model name, or the database's `provider:model` ids */
  model: z.string(),
  /** per million prompt tokens that were neither read from nor written to a cache */
  inputPerMillion: z.number().min(0),
  /** per million completion tokens (reasoning tokens are part of them) */
  outputPerMillion: z.number().min(0),
  /** per million prompt tokens read from the provider's cache */
  cacheReadPerMillion: z.number().min(0),
  /** per million prompt tokens written to the provider's cache for its default time (five minutes) */
  cacheWritePerMillion: z.number().min(0),
  /**
   * per million prompt tokens written to the provider's cache for an hour. Added as an OPTIONAL
   * field: absent in older events, whose cache writes were all charged `cacheWritePerMillion`.
   */
  cacheWrite1hPerMillion: z.number().min(0).optional(),
  /** per request, whatever its tokens */
  perRequest: z.number().min(0),
});

/**
 * Version 2 adds the request's cost, computed once when the usage was recorded. Version 1 events
 * (written before prices existed) are lifted with no cost and no price: they count as unpriced.
 */
export const usageRecordedV2 = envelope(
  'usage.recorded',
  2,
  usageRecordedV1.shape.body.extend({
    /**
     * The cost in nano-dollars (1e-9 USD), an integer so that sums stay exact; null when the model
     * had no price (unpriced: shown as such, never as a guessed amount).
     */
    costNanoUsd: z.number().int().min(0).nullable(),
    /** the price the cost was computed with; null when unpriced */
    price: usagePriceSchema.nullable(),
  }),
);

/**
 * A request's usage as `request.completed` version 2 carries it: the token counts and cost of
 * `usage.recorded` version 2, whose other fields are the request's own (`model` is the model
 * requested, or '' when none was named).
 */
export const requestUsageSchema = usageRecordedV2.shape.body.pick({
  promptTokens: true,
  completionTokens: true,
  cachedTokens: true,
  cacheWriteTokens: true,
  cacheWrite1hTokens: true,
  reasoningTokens: true,
  source: true,
  usageRefused: true,
  costNanoUsd: true,
  price: true,
});

/**
 * Version 2 carries the request's usage, when it used tokens, instead of a second event: the pair
 * repeated five of the request's fields, and each event cost the store, the broker and the projector
 * its own envelope, printing, parsing and retry check (measured: docs/performance.md, "One event per
 * request"). Version 1 events are lifted with no usage: their usage, if any, is a `usage.recorded`.
 * Usage is recorded only for a request whose key was recognised.
 */
export const requestCompletedV2 = envelope(
  'request.completed',
  2,
  requestCompletedV1.shape.body
    .extend({ usage: requestUsageSchema.optional() })
    .refine((body) => body.usage === undefined || (body.userId !== null && body.tokenId !== null), {
      message: 'usage is recorded only for a request with a user and a key',
      path: ['usage'],
    }),
);

export type UpstreamAttempt = z.infer<typeof upstreamAttemptSchema>;
export type RequestCompletedV1 = z.infer<typeof requestCompletedV1>;
export type RequestCompleted = z.infer<typeof requestCompletedV2>;
export type RequestUsage = z.infer<typeof requestUsageSchema>;
export type UsageRecordedV1 = z.infer<typeof usageRecordedV1>;
export type UsageRecorded = z.infer<typeof usageRecordedV2>;
export type UsagePrice = z.infer<typeof usagePriceSchema>;
export type Endpoint = z.infer<typeof endpointSchema>;
