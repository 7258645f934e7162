/**
 * @module gateway/providers/messages/messages-providers
 * `/v1/messages` on a channel of any kind whose format is not Anthropic's: the request read by
 * read-messages-request.ts, the reply written as an Anthropic message or its events. The client's
 * headers reach the kind, which reads what it knows of them.
 */
import type { MessagesRequest } from '../../../contracts/anthropic/messages-request.ts';
import { writeAnthropicMessage } from '../conversion/write-anthropic-message.ts';
import { AnthropicStreamWriter } from '../conversion/write-anthropic-stream.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import type { UpstreamKind } from '../kinds.ts';
import type { Provider } from '../provider.ts';
import { readMessagesRequest } from './read-messages-request.ts';

// The endpoint checked the body against the Messages contract before any provider sees it.
const messagesBody = (body: Record<string, unknown>) => body as MessagesRequest;

export const messagesFormat: IngressFormat = {
  read: (body, target) => readMessagesRequest(messagesBody(body), { target }),
  passHeaders: true,
  writeReply: (reply) => writeAnthropicMessage(reply),
  createStreamWriter: () => new AnthropicStreamWriter(),
};

/** `/v1/messages` on a channel of `kind`; `target` names the kind in warnings. */
export function messagesOn(kind: UpstreamKind, target: string): Provider {
  return convertingProvider(messagesFormat, kind, target);
}
