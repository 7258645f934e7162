/**
 * @module contracts/neutral/request
 * The format-neutral request: what an ingress reader makes of a client's request and what an upstream
 * request writer renders for its kind. Turns hold typed parts (text, image, file, tool call, tool
 * result, thinking with its signature); the system prompt, tools, sampling, reasoning and response
 * format sit beside them, so no writer needs to know which format the client spoke.
 */
import { z } from 'zod';

export const neutralPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  /** an http(s) URL or a `data:` URL */
  z.object({ type: z.literal('image'), url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
  /** `data` is a `data:` URL; a file known only by its provider-side id has `fileId` */
  z.object({
    type: z.literal('file'),
    data: z.string().optional(),
    fileId: z.string().optional(),
    filename: z.string().optional(),
  }),
  /** `arguments` is JSON text */
  z.object({ type: z.literal('tool-call'), id: z.string(), name: z.string(), arguments: z.string() }),
  z.object({ type: z.literal('tool-result'), callId: z.string(), output: z.string() }),
  /** Anthropic verifies `signature`; thinking without one cannot be sent back to Anthropic */
  z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted-thinking'), data: z.string() }),
]);

export const neutralTurnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  parts: z.array(neutralPartSchema),
});

export const neutralToolSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  /** a JSON schema of the arguments */
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().optional(),
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
  /** system (and developer) instructions, in order */
  system: z.array(z.string()),
  turns: z.array(neutralTurnSchema),
  tools: z.array(neutralToolSchema),
  toolChoice: neutralToolChoiceSchema.optional(),
  parallelToolCalls: z.boolean().optional(),
  sampling: z.object({
    maxOutputTokens: z.number().int().optional(),
    temperature: z.number().optional(),
    topP: z.number().optional(),
    stop: z.array(z.string()).optional(),
  }),
  reasoning: z
    .object({ effort: reasoningEffortSchema.optional(), summary: z.enum(['auto', 'concise', 'detailed']).optional() })
    .optional(),
  responseFormat: neutralResponseFormatSchema.optional(),
  stream: z.boolean(),
  /** an end-user id, for the upstream's abuse tracking */
  user: z.string().optional(),
});

export type NeutralPart = z.infer<typeof neutralPartSchema>;
export type NeutralTurn = z.infer<typeof neutralTurnSchema>;
export type NeutralTool = z.infer<typeof neutralToolSchema>;
export type NeutralToolChoice = z.infer<typeof neutralToolChoiceSchema>;
export type NeutralResponseFormat = z.infer<typeof neutralResponseFormatSchema>;
export type NeutralRequest = z.infer<typeof neutralRequestSchema>;
