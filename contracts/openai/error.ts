/**
 * @module contracts/openai/error
 * OpenAI's error body: all four keys present, `param` and `code` nullable.
 */
import { z } from 'zod';

export const openAIErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

export type OpenAIErrorBody = z.infer<typeof openAIErrorBodySchema>;
