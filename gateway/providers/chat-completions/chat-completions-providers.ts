/**
 * @module gateway/providers/chat-completions/chat-completions-providers
 * `/v1/chat/completions` on a channel of any kind whose format is not Chat Completions: the request
 * read by read-chat-request.ts, the reply written as a Chat Completion or its chunks. The usage chunk
 * is sent only when the client asked for it (`stream_options.include_usage`).
 */
import { type ChatCompletionRequest, chatCompletionRequestSchema } from '../../../contracts/openai/chat-request.ts';
import { writeOpenAICompletion } from '../conversion/write-openai-completion.ts';
import { OpenAIStreamWriter } from '../conversion/write-openai-stream.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import type { UpstreamKind } from '../kinds.ts';
import type { Provider } from '../provider.ts';
import { checkedBody } from '../read-request.ts';
import { readChatRequest } from './read-chat-request.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

// The endpoint checked what the gateway reads (`stream_options` among it); the reader needs the whole contract.
const chatBody = (body: Record<string, unknown>) => body as ChatCompletionRequest;

export const chatCompletionsFormat: IngressFormat = {
  read: (body, target) => readChatRequest(checkedBody(chatCompletionRequestSchema, body), { target }),
  // OpenAI clients send no headers another kind reads (anthropic-version, anthropic-beta): its defaults apply.
  passHeaders: false,
  hidesUsage: (body) => chatBody(body).stream_options?.include_usage !== true,
  writeReply: (reply) => writeOpenAICompletion(reply, nowSeconds()),
  createStreamWriter: ({ hideUsageChunk }) =>
    new OpenAIStreamWriter({ includeUsage: !hideUsageChunk, created: nowSeconds() }),
};

/** `/v1/chat/completions` on a channel of `kind`; `target` names the kind in warnings. */
export function chatCompletionsOn(kind: UpstreamKind, target: string): Provider {
  return convertingProvider(chatCompletionsFormat, kind, target);
}
