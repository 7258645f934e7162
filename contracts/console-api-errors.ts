/**
 * @module contracts/console-api-errors
 * The one error shape of the console API (`/api`), and the rule an input broke.
 */
import { z } from 'zod';

/**
 * The rule an input broke, beside its `field`, so that a client can say it in its own language
 * (`too_short` with `limit` 8 on `password`) instead of showing the English `message`.
 */
export const validationRuleSchema = z.enum([
  'required',
  'empty',
  'too_short',
  'too_long',
  'too_small',
  'too_big',
  'too_few',
  'too_many',
  'not_integer',
  'wrong_type',
  'invalid_email',
  'invalid_date',
  'invalid_format',
  'invalid_choice',
  'unknown_field',
  'invalid',
]);

/** The one error shape of `/api`: a stable machine code and a sentence for people. */
export const consoleErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    /** on `invalid_request`: which rule `field` broke; absent from servers before it */
    rule: validationRuleSchema.optional(),
    /** the bound of a `too_*` rule: a length, a count or a value */
    limit: z.number().optional(),
  }),
});

export type ConsoleError = z.infer<typeof consoleErrorSchema>;
export type ValidationRule = z.infer<typeof validationRuleSchema>;
