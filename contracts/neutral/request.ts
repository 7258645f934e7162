/**
 * @module contracts/neutral/request
 * The format-neutral request: what an ingress reader makes of a client's request and what an upstream
 * request writer renders for its kind. Turns hold typed parts (text, image, file, tool call, tool
 * result, thinking with its signature); the system prompt, tools, sampling, reasoning and response
 * format sit beside them, so no writer needs to know which format the client spoke.
 */
import { z } from 'zod';

/**
 * A prompt-cache breakpoint: the upstream may cache the prompt up to and including what carries it
 * (Anthropic's `cache_control`, Bedrock's cache points). Kinds without explicit caching ignore it.
 */
export const neutralCacheSchema = z.object({ ttl: z.string().optional() });

const textPart = z.object({ type: z.literal('text'), text: z.string(), cache: neutralCacheSchema.optional() });
/** an http(s) URL or a `data:` URL */
const imagePart = z.object({
  type: z.literal('image'),
  url: z.string(),
  detail: z.enum(['auto', 'low', 'high']).optional(),
  cache: neutralCacheSchema.optional(),
});
/** `data` is a `data:` URL; a file known only by its provider-side id has `fileId` */
const filePart = z.object({
  type: z.literal('file'),
  data: z.string().optional(),
  fileId: z.string().optional(),
  filename: z.string().optional(),
  cache: neutralCacheSchema.optional(),
});

/** What a tool result may hold besides its text: formats that take only text use `output`. */
export const neutralResultContentSchema = z.discriminatedUnion('type', [textPart, imagePart, filePart]);

export const neutralPartSchema = z.discriminatedUnion('type', [
  textPart,
  imagePart,
  filePart,
  /** `arguments` is JSON text */
  z.object({
    type: z.literal('tool-call'),
    id: z.string(),
    name: z.string(),
    arguments: z.string(),
    cache: neutralCacheSchema.optional(),
  }),
  /**
   * `output` is the result as text; `content`, when the client sent the result in parts, keeps them
   * apart (text blocks never joined, images a tool returned) for formats that take parts.
   */
  z.object({
    type: z.literal('tool-result'),
    callId: z.string(),
    output: z.string(),
    isError: z.boolean().optional(),
    content: z.array(neutralResultContentSchema).optional(),
    cache: neutralCacheSchema.optional(),
  }),
  /** Anthropic verifies `signature`; thinking without one cannot be sent back to Anthropic */
  z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted-thinking'), data: z.string() }),
]);

/**
 * A `system` turn is an instruction given in the middle of the conversation (text parts only); those
 * before the first turn are the request's `system`. A kind that takes none in the conversation gets
 * them moved to its system prompt, with a warning (converted-request.ts).
 */
export const neutralTurnSchema = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(neutralPartSchema),
});

export const neutralToolSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  /** a JSON schema of the arguments */
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().optional(),
  cache: neutralCacheSchema.optional(),
});

export const neutralToolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.object({ name: z.string() })]);

export const reasoningEffortSchema = z.enum(['minimal', 'low', 'medium', 'high']);

export const neutralResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json-object') }),
  z.object({
    type: z.literal('json-schema'),
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().optional(),
  }),
]);

export const neutralRequestSchema = z.object({
  model: z.string(),
  /** system (and developer) instructions before the conversation, in order */
  system: z.array(z.string()),
  /** a cache breakpoint after the whole system prompt */
  systemCache: neutralCacheSchema.optional(),
  turns: z.array(neutralTurnSchema),
  tools: z.array(neutralToolSchema),
  toolChoice: neutralToolChoiceSchema.optional(),
  parallelToolCalls: z.boolean().optional(),
  sampling: z.object({
    maxOutputTokens: z.number().int().optional(),
    temperature: z.number().optional(),
    topP: z.number().optional(),
    stop: z.array(z.string()).optional(),
    topK: z.number().int().optional(),
  }),
  /**
   * `effort` is what every format can express; `budgetTokens` is the exact thinking budget when the
   * client gave one (Anthropic's `thinking.budget_tokens`), for kinds that take a budget.
   */
  reasoning: z
    .object({
      effort: reasoningEffortSchema.optional(),
      budgetTokens: z.number().int().optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).optional(),
    })
    .optional(),
  responseFormat: neutralResponseFormatSchema.optional(),
  stream: z.boolean(),
  /** an end-user id, for the upstream's abuse tracking */
  user: z.string().optional(),
});

export type NeutralCache = z.infer<typeof neutralCacheSchema>;
export type NeutralResultContent = z.infer<typeof neutralResultContentSchema>;
export type NeutralPart = z.infer<typeof neutralPartSchema>;
export type NeutralTurn = z.infer<typeof neutralTurnSchema>;
export type NeutralTool = z.infer<typeof neutralToolSchema>;
export type NeutralToolChoice = z.infer<typeof neutralToolChoiceSchema>;
export type NeutralResponseFormat = z.infer<typeof neutralResponseFormatSchema>;
export type NeutralRequest = z.infer<typeof neutralRequestSchema>;
