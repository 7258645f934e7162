/**
 * @module contracts/anthropic/messages-response
 * The `Message` Anthropic answers, its usage, and the stream events (by `type`, the same as the SSE
 * `event:` name). Minimal and loose: the gateway reads usage and ordering, not every field.
 */
import { z } from 'zod';

export const stopReasonSchema = z.enum([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

export const anthropicUsageSchema = z.looseObject({
  input_tokens: z.number().int().min(0).nullish(),
  output_tokens: z.number().int().min(0),
  cache_creation_input_tokens: z.number().int().min(0).nullish(),
  cache_read_input_tokens: z.number().int().min(0).nullish(),
});

export const responseBlockSchema = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.looseObject({ type: z.string() }),
]);

export const messageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(responseBlockSchema),
  stop_reason: stopReasonSchema.nullable(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema,
});

export const streamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: messageSchema }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number().int(),
    content_block: responseBlockSchema,
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.looseObject({ type: z.string() }),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: stopReasonSchema.nullish(), stop_sequence: z.string().nullish() }),
    usage: anthropicUsageSchema,
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ type: z.string(), message: z.string() }) }),
]);

export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;
export type AnthropicMessageResponse = z.infer<typeof messageSchema>;
export type AnthropicStreamEvent = z.infer<typeof streamEventSchema>;
export type StopReason = z.infer<typeof stopReasonSchema>;
