/**
 * @module contracts/events/response-events
 * Stored Responses (`POST /v1/responses` with `store` not false): one turn of a conversation as the
 * gateway answered it, kept so that `GET /v1/responses/{id}` can return it and a later request's
 * `previous_response_id` can rebuild the conversation from it. Traffic events: they are kept for a
 * retention, not forever, and carry no key or upstream key (the owner is named by user and key id).
 * Items are kept as the Responses API shaped them (the client's input items, the reply's output
 * items): the contract bounds their size, not their inner shape, which the Responses contracts own.
 */
import { z } from 'zod';
import { channelTypeSchema } from '../channel-type.ts';
import { envelope } from './envelope.ts';

/** An input or output item of the Responses API, as sent or answered. */
const responseItemSchema = z.record(z.string(), z.unknown());

export const responseStoredV1 = envelope(
  'response.stored',
  1,
  z.object({
    responseId: z.string().min(1).max(256),
    /** the owner: only this account's keys see the response */
    userId: z.string(),
    tokenId: z.string(),
    /** the request that made it (its request.completed and usage.recorded) */
    requestId: z.string(),
    /** the turn this one continued, null for a first turn */
    previousResponseId: z.string().nullable(),
    channelId: z.string(),
    channelType: channelTypeSchema,
    /** answered by the upstream's own Responses API, which keeps its copy under the same id */
    native: z.boolean(),
    model: z.string(),
    status: z.enum(['completed', 'incomplete']),
    /** the response's `created_at`, seconds since the epoch */
    createdAt: z.number().int(),
    usage: z.object({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) }).nullable(),
    /** this turn's input, as a list of items (a string input is one user message) */
    inputItems: z.array(responseItemSchema),
    outputItems: z.array(responseItemSchema),
    /** the rest of the response object as answered (instructions, tools, sampling, metadata), without its output */
    settings: z.record(z.string(), z.unknown()),
  }),
);

export const responseDeletedV1 = envelope(
  'response.deleted',
  1,
  z.object({ responseId: z.string().min(1).max(256), userId: z.string() }),
);

export type ResponseStored = z.infer<typeof responseStoredV1>;
export type ResponseDeleted = z.infer<typeof responseDeletedV1>;
