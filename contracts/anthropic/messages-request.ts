/**
 * @module contracts/anthropic/messages-request
 * The body of `POST /v1/messages`. `max_tokens` is optional here (the spec leaves it open and its
 * thinking example omits it); the gateway fills a documented default before relaying. The relay checks
 * only the envelope at the end before routing; a converted channel checks this whole contract.
 */
import { z } from 'zod';
import { cacheControlSchema, contentBlockParamSchema, textBlockSchema } from './content-block.ts';

/** Used when a client leaves out `max_tokens`; Anthropic itself requires the field. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * `system` in the conversation is an instruction given at that turn (Claude Code sends them with a
 * per-turn-control beta); a converted channel takes it as the reader decides, Anthropic as sent.
 */
export const anthropicMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlockParamSchema)]),
});

export const customToolSchema = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'must be 1 to 128 characters of a-z, A-Z, 0-9, underscore or dash'),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: cacheControlSchema.nullish(),
});

export const anthropicToolSchema = z.union([
  customToolSchema,
  // Server tools (web search, code execution, …) carry a versioned type and no input_schema.
  z.looseObject({ type: z.string().refine((type) => type !== 'custom'), name: z.string() }),
]);

/** A validated tool the client runs itself: server tools always name their versioned type. */
export function isCustomTool(tool: AnthropicTool): tool is z.infer<typeof customToolSchema> {
  return tool.type === undefined || tool.type === 'custom';
}

export const anthropicToolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);

export const thinkingConfigSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024) }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  max_tokens: z.number().int().min(1).optional(),
  messages: z.array(anthropicMessageSchema).min(1, 'must hold at least one message'),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  tools: z.array(anthropicToolSchema).optional(),
  tool_choice: anthropicToolChoiceSchema.optional(),
  thinking: thinkingConfigSchema.optional(),
  /** structured outputs (the reply's text is JSON matching `format.schema`) and the effort */
  output_config: z
    .looseObject({
      format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).optional() }).nullish(),
      /** how much the model spends, thinking included: low, medium, high (max on some models) */
      effort: z.string().optional(),
    })
    .optional(),
});

/**
 * What the gateway itself reads of every `/v1/messages` body, whichever channel serves it: the model
 * it routes by, `stream`, `max_tokens` (the quota and budget holds count it) and a conversation of
 * messages with a role, as the spec describes the request. An Anthropic channel receives everything
 * else as the client wrote it and is the judge of it: new roles, block types, tool types and fields
 * are never the gateway's 400. A converted channel checks the whole contract above before reading.
 */
export const messagesEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  max_tokens: z.number().int().min(1).optional(),
  messages: z.array(z.looseObject({ role: z.string() })).min(1, 'must hold at least one message'),
  stream: z.boolean().optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;
export type AnthropicTool = z.infer<typeof anthropicToolSchema>;
export type AnthropicToolChoice = z.infer<typeof anthropicToolChoiceSchema>;
