/**
 * @module contracts/gemini/error
 * Google's error body (google.rpc.Status in JSON): `code` is the HTTP status, `status` the
 * canonical code name (INVALID_ARGUMENT, RESOURCE_EXHAUSTED…), `details` typed objects such as
 * ErrorInfo, whose `reason` tells an invalid API key (API_KEY_INVALID) from other bad requests.
 */
import { z } from 'zod';

export const geminiErrorBodySchema = z.object({
  error: z.object({
    code: z.number(),
    message: z.string(),
    status: z.string(),
    details: z.array(z.object({ '@type': z.string().optional(), reason: z.string().optional() })).optional(),
  }),
});

export type GeminiErrorBody = z.infer<typeof geminiErrorBodySchema>;
