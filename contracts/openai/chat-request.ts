/**
 * @module contracts/openai/chat-request
 * The body of `POST /v1/chat/completions`, with every field, default and range of the gateway spec.
 * Defaults are documented here but not injected: the upstream applies its own, and a relayed request
 * should carry only what the client sent. The relay checks only the envelope at the end before
 * routing; a converted channel checks this whole contract.
 */
import { z } from 'zod';
import { chatMessageSchema } from './chat-message.ts';

export const MAX_TOOLS = 128;

/** OpenAI's documented function-name rule; Anthropic accepts the same set. */
const functionNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 characters of a-z, A-Z, 0-9, underscore or dash');

export const toolDefinitionSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: functionNameSchema,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

export const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: functionNameSchema }) }),
]);

export const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: functionNameSchema,
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

const penalty = z.number().min(-2).max(2);

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(chatMessageSchema).min(1, 'must hold at least one message'),
  /** default false */
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  /** default 1 */
  temperature: z.number().min(0).max(2).nullish(),
  /** default 1 */
  top_p: z.number().min(0).max(1).nullish(),
  /** default 1 */
  n: z.number().int().min(1).max(128).nullish(),
  /** deprecated in favour of max_completion_tokens */
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  /** default null */
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  /** default 0 */
  presence_penalty: penalty.nullish(),
  /** default 0 */
  frequency_penalty: penalty.nullish(),
  tools: z.array(toolDefinitionSchema).max(MAX_TOOLS).optional(),
  /** default auto (none without tools) */
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormatSchema.optional(),
  /** default medium; only reasoning-series models use it */
  reasoning_effort: z.enum(['low', 'medium', 'high']).nullish(),
  /** Beta */
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).nullish(),
  /** default false */
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullish(),
  user: z.string().optional(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/**
 * What the gateway itself reads of every `/v1/chat/completions` body, whichever channel serves it:
 * the model it routes by, `stream` and `stream_options` (it asks for the usage chunk), the completion
 * allowance and `n` (the quota and budget holds count them), the spec's own limits (temperature,
 * penalties, at most 128 tools) and a conversation of messages with a role. An OpenAI channel receives
 * everything else as the client wrote it and is the judge of it; a converted channel checks the whole
 * contract above before reading.
 */
export const chatCompletionEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(z.looseObject({ role: z.string() })).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  n: z.number().int().min(1).max(128).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  presence_penalty: penalty.nullish(),
  frequency_penalty: penalty.nullish(),
  tools: z.array(z.unknown()).max(MAX_TOOLS).optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;
