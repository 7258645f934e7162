/**
 * @module contracts/anthropic/messages-request
 * The body of `POST /v1/messages`. `max_tokens` is optional here (the spec leaves it open and its
 * thinking example omits it); the gateway fills a documented default before relaying.
 */
import { z } from 'zod';
import { cacheControlSchema, contentBlockParamSchema, textBlockSchema } from './content-block.ts';

/** Used when a client leaves out `max_tokens`; Anthropic itself requires the field. */
export const DEFAULT_MAX_TOKENS = 4096;

export const anthropicMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
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
  /** structured outputs: the reply's text is JSON matching `format.schema` */
  output_config: z
    .looseObject({
      format: z.looseObject({ type: z.string(), schema: z.record(z.string(), z.unknown()).optional() }).nullish(),
    })
    .optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;
export type AnthropicTool = z.infer<typeof anthropicToolSchema>;
export type AnthropicToolChoice = z.infer<typeof anthropicToolChoiceSchema>;
