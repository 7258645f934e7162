/**
 * @module contracts/openai/responses-compaction
 * Compaction and token counting on the Responses API (openai 7.x `responses.compact`,
 * `responses.inputTokens.count`): the bodies of `POST /v1/responses/compact` and
 * `POST /v1/responses/input_tokens` as far as the gateway reads them, their answers, the `compaction`
 * item a compaction answers (sent back in a later request's `input`), the `compaction_trigger` item
 * that asks an ordinary `/v1/responses` request to answer one, and the stream events such a
 * request sends. Unknown fields pass: a native Responses upstream is their judge.
 */
import { z } from 'zod';
import { responsesUsageSchema } from './responses-response.ts';

/** The compacted history as one opaque item: OpenAI's is encrypted by OpenAI, the gateway's sealed by the gateway. */
export const compactionItemSchema = z.looseObject({
  type: z.literal('compaction'),
  id: z.string().nullish(),
  encrypted_content: z.string(),
  created_by: z.string().optional(),
});

/** Asks the request to compact the conversation before it: must be the last input item. */
export const compactionTriggerItemSchema = z.looseObject({
  type: z.literal('compaction_trigger'),
  id: z.string().nullish(),
});

const inputSchema = z.union([z.string(), z.array(z.looseObject({}))]);

/**
 * What the gateway reads of a `/v1/responses/compact` body: the model it routes by and the history
 * (`input`, and the stored turns of `previous_response_id`). The answer is one JSON object: a
 * compaction is never streamed.
 */
export const responsesCompactEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  input: inputSchema.nullish(),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  stream: z.literal(false, 'must be false or left out: a compaction is answered as one JSON object').nullish(),
});

/** `POST /v1/responses/compact`'s answer: the retained user messages, then one compaction item. */
export const compactedResponseSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response.compaction'),
  created_at: z.number(),
  output: z.array(z.looseObject({ type: z.string() })),
  usage: responsesUsageSchema,
});

/** What the gateway reads of a `/v1/responses/input_tokens` body: a Responses body that is counted, not run. */
export const responsesInputTokensEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model: the gateway counts with the channel that serves it'),
  input: inputSchema.nullish(),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
});

export const inputTokensResponseSchema = z.object({
  object: z.literal('response.input_tokens'),
  input_tokens: z.number().int().min(0),
});

/**
 * The events of a stream that answers a `compaction_trigger` with the gateway's own summary: the
 * response's opening and final events are the usual ones (responses-response.ts) with the compaction
 * item as their output; while the summary is written, `response.compaction.compacting` (no content)
 * keeps the stream visibly alive.
 */
export const compactionStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('response.compaction.compacting'),
    item_id: z.string(),
    output_index: z.number(),
    sequence_number: z.number(),
  }),
  z.object({
    type: z.literal('response.output_item.added'),
    output_index: z.number(),
    item: compactionItemSchema,
    sequence_number: z.number(),
  }),
  z.object({
    type: z.literal('response.output_item.done'),
    output_index: z.number(),
    item: compactionItemSchema,
    sequence_number: z.number(),
  }),
]);

export type CompactionItem = z.infer<typeof compactionItemSchema>;
export type CompactedResponse = z.infer<typeof compactedResponseSchema>;
export type InputTokensResponse = z.infer<typeof inputTokensResponseSchema>;
export type CompactionStreamEvent = z.infer<typeof compactionStreamEventSchema>;
