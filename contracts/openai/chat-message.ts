/**
 * @module contracts/openai/chat-message
 * The messages of an OpenAI Chat Completions request: the five roles of the spec and their content parts.
 * Objects are loose (unknown keys kept) so vendor extensions survive a same-format relay; known keys are
 * checked strictly by type.
 */
import { z } from 'zod';

export const textPartSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
});

export const imagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({
    url: z.string().min(1, 'must be an http(s) URL or a data: URL'),
    detail: z.enum(['auto', 'low', 'high']).optional(),
  }),
});

export const inputAudioPartSchema = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});

export const filePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    filename: z.string().optional(),
    file_data: z.string().optional(),
    file_id: z.string().optional(),
  }),
});

export const refusalPartSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

export const userContentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  inputAudioPartSchema,
  filePartSchema,
]);

export const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const textContent = z.union([z.string(), z.array(textPartSchema)]);

export const systemMessageSchema = z.looseObject({
  role: z.literal('system'),
  content: textContent,
  name: z.string().optional(),
});

export const developerMessageSchema = z.looseObject({
  role: z.literal('developer'),
  content: textContent,
  name: z.string().optional(),
});

export const userMessageSchema = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userContentPartSchema)]),
  name: z.string().optional(),
});

/**
 * Thinking a client keeps from an earlier reply of an Anthropic-backed model (the field this gateway
 * and LiteLLM give OpenAI clients), sent back so a thinking tool loop continues. Fields are optional:
 * an OpenAI-compatible upstream receives the blocks as sent, whatever they hold.
 */
export const thinkingBlockSchema = z.looseObject({
  type: z.string(),
  thinking: z.string().optional(),
  signature: z.string().optional(),
  data: z.string().optional(),
});

export const assistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPartSchema, refusalPartSchema]))]).nullish(),
  name: z.string().optional(),
  refusal: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).optional(),
  thinking_blocks: z.array(thinkingBlockSchema).nullish(),
});

export const toolMessageSchema = z.looseObject({
  role: z.literal('tool'),
  content: textContent,
  tool_call_id: z.string().min(1, 'must name the tool call this message answers'),
});

export const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessageSchema,
  developerMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type UserContentPart = z.infer<typeof userContentPartSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;
