/**
 * @module contracts/anthropic/count-tokens-request
 * The body of `POST /v1/messages/count_tokens` (`MessageCountTokensParams` in Anthropic's SDK): a
 * Messages request without the sampling and output fields, since nothing is generated. Open to new
 * fields like the Messages contract (an Anthropic channel receives the body as sent, and judges it).
 */
import { z } from 'zod';
import { textBlockSchema } from './content-block.ts';
import {
  anthropicMessageSchema,
  anthropicToolChoiceSchema,
  anthropicToolSchema,
  thinkingConfigSchema,
} from './messages-request.ts';

export const countTokensRequestSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(anthropicMessageSchema).min(1, 'must hold at least one message'),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  tools: z.array(anthropicToolSchema).optional(),
  tool_choice: anthropicToolChoiceSchema.optional(),
  thinking: thinkingConfigSchema.optional(),
});

/** What the gateway reads of every count_tokens body: an Anthropic channel judges the rest, as on Messages. */
export const countTokensEnvelopeSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(z.looseObject({ role: z.string() })).min(1, 'must hold at least one message'),
});

/** The answer (`MessageTokensCount`): every token of the system prompt, tools and messages. */
export const tokensCountSchema = z.looseObject({ input_tokens: z.number().int().min(0) });

export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
export type TokensCount = z.infer<typeof tokensCountSchema>;
