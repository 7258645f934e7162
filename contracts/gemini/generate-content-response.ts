/**
 * @module contracts/gemini/generate-content-response
 * Google AI Studio's `GenerateContentResponse`: the whole reply of `:generateContent`, and each
 * `data:` event of `:streamGenerateContent?alt=sse` (a stream is a sequence of partial responses, the
 * last with the finish reason and the usage). Token semantics (Google's reference): the prompt count
 * includes the cached content; the candidates count leaves out the thoughts, reported apart.
 */
import { z } from 'zod';
import { geminiContentSchema } from './generate-content-request.ts';

export const geminiFinishReasonSchema = z.enum([
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
]);

export const geminiUsageMetadataSchema = z.object({
  promptTokenCount: z.number().optional(),
  cachedContentTokenCount: z.number().optional(),
  candidatesTokenCount: z.number().optional(),
  toolUsePromptTokenCount: z.number().optional(),
  thoughtsTokenCount: z.number().optional(),
  totalTokenCount: z.number().optional(),
});

export const geminiCandidateSchema = z.object({
  content: geminiContentSchema.optional(),
  /** a string outside the enum is possible: Google adds reasons */
  finishReason: z.string().optional(),
  index: z.number().optional(),
});

export const geminiGenerateContentResponseSchema = z.object({
  candidates: z.array(geminiCandidateSchema).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: geminiUsageMetadataSchema.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});

export type GeminiFinishReason = z.infer<typeof geminiFinishReasonSchema>;
export type GeminiUsageMetadata = z.infer<typeof geminiUsageMetadataSchema>;
export type GeminiCandidate = z.infer<typeof geminiCandidateSchema>;
export type GeminiGenerateContentResponse = z.infer<typeof geminiGenerateContentResponseSchema>;
