/**
 * @module contracts/openai/responses-response
 * A Responses API reply and its stream events, as openai 6.x types them (`Response`,
 * `ResponseOutputItem`, `ResponseStreamEvent`): what the gateway's Responses writer produces, and
 * what a native Responses upstream is read by.
 */
import { z } from 'zod';

export const responsesOutputTextSchema = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()).optional(),
});

export const responsesOutputMessageSchema = z.object({
  type: z.literal('message'),
  id: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
  role: z.literal('assistant'),
  content: z.array(z.union([responsesOutputTextSchema, z.object({ type: z.literal('refusal'), refusal: z.string() })])),
});

export const responsesOutputFunctionCallSchema = z.object({
  type: z.literal('function_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  /** the namespace tool (`tools[].type: namespace`) the function belongs to; `name` is its own name in it */
  namespace: z.string().optional(),
  arguments: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
});

/** A call of a custom (freeform) tool: `input` is the model's text, not JSON arguments. */
export const responsesOutputCustomToolCallSchema = z.object({
  type: z.literal('custom_tool_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  /** the namespace tool the custom tool belongs to; `name` is its own name in it */
  namespace: z.string().optional(),
  input: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
});

export const responsesOutputReasoningSchema = z.object({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })),
  /** Anthropic's signature (or redacted thinking), so the client can send the item back */
  encrypted_content: z.string().nullable().optional(),
  status: z.enum(['in_progress', 'completed', 'incomplete']).optional(),
});

export const responsesOutputItemSchema = z.discriminatedUnion('type', [
  responsesOutputMessageSchema,
  responsesOutputFunctionCallSchema,
  responsesOutputCustomToolCallSchema,
  responsesOutputReasoningSchema,
]);

export const responsesUsageSchema = z.object({
  input_tokens: z.number(),
  input_tokens_details: z.object({ cached_tokens: z.number() }),
  output_tokens: z.number(),
  output_tokens_details: z.object({ reasoning_tokens: z.number() }),
  total_tokens: z.number(),
});

export const responsesStatusSchema = z.enum([
  'completed',
  'failed',
  'in_progress',
  'incomplete',
  'cancelled',
  'queued',
]);

export const responsesObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number(),
  status: responsesStatusSchema,
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.object({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().nullable(),
  model: z.string(),
  output: z.array(responsesOutputItemSchema),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.object({ effort: z.string().nullable(), summary: z.string().nullable() }),
  store: z.boolean(),
  temperature: z.number().nullable(),
  text: z.object({ format: z.record(z.string(), z.unknown()) }),
  tool_choice: z.unknown(),
  tools: z.array(z.unknown()),
  top_p: z.number().nullable(),
  truncation: z.enum(['auto', 'disabled']),
  usage: responsesUsageSchema.nullable(),
  user: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  /** the SDK's convenience field: every output_text joined; sent too, for raw HTTP clients */
  output_text: z.string(),
});

/** The stream events the gateway writes, each with the stream's `sequence_number`. */
const sequenced = { sequence_number: z.number() };
const atItem = { ...sequenced, item_id: z.string(), output_index: z.number() };

export const responsesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('response.created'), response: responsesObjectSchema, ...sequenced }),
  z.object({ type: z.literal('response.in_progress'), response: responsesObjectSchema, ...sequenced }),
  z.object({ type: z.literal('response.completed'), response: responsesObjectSchema, ...sequenced }),
  z.object({ type: z.literal('response.incomplete'), response: responsesObjectSchema, ...sequenced }),
  z.object({ type: z.literal('response.failed'), response: responsesObjectSchema, ...sequenced }),
  z.object({
    type: z.literal('response.output_item.added'),
    output_index: z.number(),
    item: responsesOutputItemSchema,
    ...sequenced,
  }),
  z.object({
    type: z.literal('response.output_item.done'),
    output_index: z.number(),
    item: responsesOutputItemSchema,
    ...sequenced,
  }),
  z.object({
    type: z.literal('response.content_part.added'),
    content_index: z.number(),
    part: responsesOutputTextSchema,
    ...atItem,
  }),
  z.object({
    type: z.literal('response.content_part.done'),
    content_index: z.number(),
    part: responsesOutputTextSchema,
    ...atItem,
  }),
  z.object({
    type: z.literal('response.output_text.delta'),
    content_index: z.number(),
    delta: z.string(),
    logprobs: z.array(z.unknown()),
    ...atItem,
  }),
  z.object({
    type: z.literal('response.output_text.done'),
    content_index: z.number(),
    text: z.string(),
    logprobs: z.array(z.unknown()),
    ...atItem,
  }),
  z.object({ type: z.literal('response.function_call_arguments.delta'), delta: z.string(), ...atItem }),
  z.object({
    type: z.literal('response.function_call_arguments.done'),
    arguments: z.string(),
    name: z.string(),
    ...atItem,
  }),
  z.object({ type: z.literal('response.custom_tool_call_input.delta'), delta: z.string(), ...atItem }),
  z.object({ type: z.literal('response.custom_tool_call_input.done'), input: z.string(), ...atItem }),
  z.object({
    type: z.literal('response.reasoning_summary_part.added'),
    summary_index: z.number(),
    part: z.object({ type: z.literal('summary_text'), text: z.string() }),
    ...atItem,
  }),
  z.object({
    type: z.literal('response.reasoning_summary_part.done'),
    summary_index: z.number(),
    part: z.object({ type: z.literal('summary_text'), text: z.string() }),
    ...atItem,
  }),
  z.object({
    type: z.literal('response.reasoning_summary_text.delta'),
    summary_index: z.number(),
    delta: z.string(),
    ...atItem,
  }),
  z.object({
    type: z.literal('response.reasoning_summary_text.done'),
    summary_index: z.number(),
    text: z.string(),
    ...atItem,
  }),
  z.object({
    type: z.literal('error'),
    code: z.string().nullable(),
    message: z.string(),
    param: z.string().nullable(),
    ...sequenced,
  }),
]);

export type ResponsesObject = z.infer<typeof responsesObjectSchema>;
export type ResponsesOutputItem = z.infer<typeof responsesOutputItemSchema>;
export type ResponsesUsage = z.infer<typeof responsesUsageSchema>;
export type ResponsesStreamEvent = z.infer<typeof responsesStreamEventSchema>;
/** An event as the writer builds it: everything but the sequence number, which the writer adds. */
export type UnsequencedStreamEvent = ResponsesStreamEvent extends infer Event
  ? Event extends ResponsesStreamEvent
    ? Omit<Event, 'sequence_number'>
    : never
  : never;
