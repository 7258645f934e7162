/**
 * @module contracts/anthropic/error
 * Anthropic's error body. `request_id` is top-level in the current schema.
 */
import { z } from 'zod';

export const anthropicErrorTypeSchema = z.enum([
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
]);

export const anthropicErrorBodySchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
  request_id: z.string().optional(),
});

export type AnthropicErrorType = z.infer<typeof anthropicErrorTypeSchema>;
export type AnthropicErrorBody = z.infer<typeof anthropicErrorBodySchema>;
