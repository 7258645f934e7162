/**
 * @module contracts/openai/chat-response
 * What `POST /v1/chat/completions` answers: the completion, the stream chunk, and usage. Response
 * schemas are minimal and nullish (upstreams add fields); tests validate against OpenAI's OpenAPI file.
 */
import { z } from 'zod';
import { toolCallSchema } from './chat-message.ts';

export const finishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

export const completionUsageSchema = z.looseObject({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
  prompt_tokens_details: z
    .looseObject({ cached_tokens: z.number().int().nullish(), cache_write_tokens: z.number().int().nullish() })
    .nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nullish() }).nullish(),
});

export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: z.looseObject({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.string().nullish(),
        tool_calls: z.array(toolCallSchema).nullish(),
        reasoning_content: z.string().nullish(),
      }),
      finish_reason: finishReasonSchema.nullable(),
      logprobs: z.unknown().nullish(),
    }),
  ),
  usage: completionUsageSchema.nullish(),
  system_fingerprint: z.string().nullish(),
});

export const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().min(0),
  id: z.string().nullish(),
  type: z.literal('function').nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      delta: z.looseObject({
        role: z.literal('assistant').nullish(),
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        reasoning_content: z.string().nullish(),
        reasoning: z.string().nullish(),
        tool_calls: z.array(toolCallDeltaSchema).nullish(),
      }),
      finish_reason: finishReasonSchema.nullable(),
      logprobs: z.unknown().nullish(),
    }),
  ),
  usage: completionUsageSchema.nullish(),
});

export type CompletionUsage = z.infer<typeof completionUsageSchema>;
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
export type FinishReason = z.infer<typeof finishReasonSchema>;
