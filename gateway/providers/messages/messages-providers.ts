/**
 * @module gateway/providers/messages/messages-providers
 * `/v1/messages` on a channel of any kind whose format is not Anthropic's: the request read by
 * read-messages-request.ts, the reply written as an Anthropic message or its events. The client's
 * headers reach the kind, which reads what it knows of them.
 */
import { messagesRequestSchema } from '../../../contracts/anthropic/messages-request.ts';
import { writeAnthropicMessage } from '../conversion/write-anthropic-message.ts';
import { AnthropicStreamWriter } from '../conversion/write-anthropic-stream.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import { estimatePromptTokens } from '../estimate-usage.ts';
import type { UpstreamKind } from '../kinds.ts';
import type { Provider } from '../provider.ts';
import { checkedBody } from '../read-request.ts';
import { readMessagesRequest } from './read-messages-request.ts';

// The endpoint checked only what the gateway reads; the reader needs the whole Messages contract.
const messagesBody = (body: Record<string, unknown>) => checkedBody(messagesRequestSchema, body);

export const messagesFormat: IngressFormat = {
  read: (body, target) => readMessagesRequest(messagesBody(body), { target }),
  passHeaders: true,
  writeReply: (reply) => writeAnthropicMessage(reply),
  // The prompt estimate is bounded (tokenizer.ts): message_start carries it, message_delta the upstream's count.
  createStreamWriter: ({ body }) => new AnthropicStreamWriter({ inputTokens: estimatePromptTokens(body) }),
};

/** `/v1/messages` on a channel of `kind`; `target` names the kind in warnings. */
export function messagesOn(kind: UpstreamKind, target: string): Provider {
  return convertingProvider(messagesFormat, kind, target);
}
