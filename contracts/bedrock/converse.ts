/**
 * @module contracts/bedrock/converse
 * Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`), the shapes the `bedrock` channel
 * kind writes and reads: messages of content blocks keyed by their member (`{ text }`, `{ toolUse }`,
 * …, never a `type` tag), the system prompt as blocks, `inferenceConfig`, `toolConfig`, and the
 * reply's `output.message`, `stopReason` and `usage`. Binary members (image and document bytes,
 * redacted reasoning) travel as base64 text in JSON.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 */
import { z } from 'zod';

export const converseImageFormatSchema = z.enum(['png', 'jpeg', 'gif', 'webp']);
export const converseDocumentFormatSchema = z.enum(['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md']);

/** Reasoning text with the model's signature over it, or reasoning the provider encrypted (base64). */
export const converseReasoningContentSchema = z.union([
  z.object({ reasoningText: z.object({ text: z.string(), signature: z.string().optional() }) }),
  z.object({ redactedContent: z.string() }),
]);

/** A prompt-cache breakpoint: what comes before it may be cached (models that support prompt caching). */
export const converseCachePointSchema = z.object({ cachePoint: z.object({ type: z.literal('default') }) });

export const converseImageBlockSchema = z.object({
  image: z.object({ format: converseImageFormatSchema, source: z.object({ bytes: z.string() }) }),
});

export const converseDocumentBlockSchema = z.object({
  document: z.object({
    format: converseDocumentFormatSchema,
    /** Bedrock allows letters, digits, whitespace, hyphens, parentheses and square brackets only */
    name: z.string(),
    source: z.object({ bytes: z.string() }),
  }),
});

export const converseToolResultContentSchema = z.union([
  z.object({ text: z.string() }),
  z.object({ json: z.unknown() }),
  converseImageBlockSchema,
  converseDocumentBlockSchema,
]);

export const converseContentBlockSchema = z.union([
  z.object({ text: z.string() }),
  converseImageBlockSchema,
  converseDocumentBlockSchema,
  z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }) }),
  z.object({
    toolResult: z.object({
      toolUseId: z.string(),
      content: z.array(converseToolResultContentSchema),
      status: z.enum(['success', 'error']).optional(),
    }),
  }),
  z.object({ reasoningContent: converseReasoningContentSchema }),
  converseCachePointSchema,
]);

export const converseMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.array(converseContentBlockSchema),
});

export const converseToolSchema = z.union([
  z.object({
    toolSpec: z.object({
      name: z.string(),
      description: z.string().optional(),
      inputSchema: z.object({ json: z.record(z.string(), z.unknown()) }),
    }),
  }),
  converseCachePointSchema,
]);

/** `auto` lets the model choose, `any` makes it call some tool, `tool` names the one it must call. */
export const converseToolChoiceSchema = z.union([
  z.object({ auto: z.object({}) }),
  z.object({ any: z.object({}) }),
  z.object({ tool: z.object({ name: z.string() }) }),
]);

export const converseRequestSchema = z.object({
  messages: z.array(converseMessageSchema),
  system: z.array(z.union([z.object({ text: z.string() }), converseCachePointSchema])).optional(),
  inferenceConfig: z
    .object({
      maxTokens: z.number().int().optional(),
      temperature: z.number().optional(),
      topP: z.number().optional(),
      stopSequences: z.array(z.string()).optional(),
    })
    .optional(),
  toolConfig: z
    .object({ tools: z.array(converseToolSchema), toolChoice: converseToolChoiceSchema.optional() })
    .optional(),
  /** fields of the model's own request, e.g. Anthropic's `thinking: { type: 'enabled', budget_tokens }` */
  additionalModelRequestFields: z.record(z.string(), z.unknown()).optional(),
});

export const converseStopReasonSchema = z.enum([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'guardrail_intervened',
  'content_filtered',
  'malformed_model_output',
  'malformed_tool_use',
  'model_context_window_exceeded',
]);

/**
 * Token counts as Bedrock reports them: `inputTokens` leaves out the tokens read from or written to
 * the prompt cache, which are counted on their own.
 */
export const converseUsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  cacheReadInputTokens: z.number().optional(),
  cacheWriteInputTokens: z.number().optional(),
});

export const converseResponseSchema = z.object({
  output: z.object({ message: converseMessageSchema }),
  stopReason: converseStopReasonSchema,
  usage: converseUsageSchema,
  metrics: z.object({ latencyMs: z.number() }).optional(),
  additionalModelResponseFields: z.unknown().optional(),
});

/** Bedrock's error body; the error's name comes in the `x-amzn-errortype` header. */
export const converseErrorSchema = z.object({ message: z.string() });

export type ConverseContentBlock = z.infer<typeof converseContentBlockSchema>;
export type ConverseMessage = z.infer<typeof converseMessageSchema>;
export type ConverseTool = z.infer<typeof converseToolSchema>;
export type ConverseToolChoice = z.infer<typeof converseToolChoiceSchema>;
export type ConverseRequest = z.infer<typeof converseRequestSchema>;
export type ConverseStopReason = z.infer<typeof converseStopReasonSchema>;
export type ConverseUsage = z.infer<typeof converseUsageSchema>;
export type ConverseResponse = z.infer<typeof converseResponseSchema>;
export type ConverseToolResultContent = z.infer<typeof converseToolResultContentSchema>;
export type ConverseImageFormat = z.infer<typeof converseImageFormatSchema>;
export type ConverseDocumentFormat = z.infer<typeof converseDocumentFormatSchema>;
