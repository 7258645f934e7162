/**
 * A client's request converted for a channel of another format, as the relay does it: checked by the
 * endpoint's contract, then built by the adapter the registry gives that kind for that endpoint.
 */
import type { z } from 'zod';
import { messagesRequestSchema } from '../../../contracts/anthropic/messages-request.ts';
import { chatCompletionRequestSchema } from '../../../contracts/openai/chat-request.ts';
import { providerKinds } from '../../../gateway/providers/index.ts';
import { warningsOf } from '../../../gateway/providers/provider-extensions.ts';
import { relayInput } from './relay-input.ts';

export interface Converted {
  /** the body sent upstream */
  body: Record<string, unknown>;
  warnings: string[];
}

function convert(
  schema: z.ZodType<Record<string, unknown>>,
  type: 'openai' | 'anthropic',
  endpoint: 'chat.completions' | 'messages',
  request: Record<string, unknown>,
): Converted {
  const body = schema.parse(request);
  const built = providerKinds[type].serves[endpoint]!.buildRequest(relayInput(body, { type }));
  return { body: JSON.parse(built.upstream.body), warnings: warningsOf(built) };
}

/** `/v1/chat/completions` on an anthropic channel. */
export const chatForAnthropic = (request: Record<string, unknown>) =>
  convert(chatCompletionRequestSchema, 'anthropic', 'chat.completions', request);

/** `/v1/messages` on an openai channel. */
export const messagesForOpenAI = (request: Record<string, unknown>) =>
  convert(messagesRequestSchema, 'openai', 'messages', request);
