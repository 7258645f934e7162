/**
 * @module gateway/providers/conversion/anthropic-for-chat-completions
 * The provider that serves `/v1/chat/completions` from an `anthropic` channel: the OpenAI request is
 * converted to a Messages request, and the reply (whole or streamed) back to OpenAI's shapes, with the
 * JSON-response tool turned into content and, on channels that ask for it, thinking into `<think>` text.
 */
import { buildAnthropicRequest } from '../anthropic/request.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { ConvertingStreamRelay } from './converting-stream-relay.ts';
import { JsonToolToContent, jsonResponseTool, jsonToolToContentReply } from './json-response-tool.ts';
import { openAIRequestToAnthropic } from './openai-request-to-anthropic.ts';
import { readAnthropicMessage } from './read-anthropic-message.ts';
import { AnthropicStreamReader } from './read-anthropic-stream.ts';
import type { Reply, ReplyPartFilter } from './reply.ts';
import { replyText, withUsage } from './reply-text.ts';
import { ThinkingToContent, thinkingToContentReply } from './thinking-to-content.ts';
import { writeOpenAICompletion } from './write-openai-completion.ts';
import { OpenAIStreamWriter } from './write-openai-stream.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function clientWantsUsage(body: Record<string, unknown>): boolean {
  return (body['stream_options'] as { include_usage?: boolean } | null | undefined)?.include_usage === true;
}

function filters(input: RelayInput): ReplyPartFilter[] {
  const json = jsonResponseTool(input.body);
  return [
    ...(json ? [new JsonToolToContent(json.name)] : []),
    ...(input.route.channel.thinkingToContent ? [new ThinkingToContent()] : []),
  ];
}

function filtered(reply: Reply, input: RelayInput): Reply {
  const json = jsonResponseTool(input.body);
  const answered = json ? jsonToolToContentReply(reply, json.name) : reply;
  return input.route.channel.thinkingToContent ? thinkingToContentReply(answered) : answered;
}

export const anthropicForChatCompletions: Provider = {
  buildRequest(input) {
    const { body, warnings } = openAIRequestToAnthropic(input.body);
    // OpenAI clients send no anthropic-version or anthropic-beta; the defaults apply.
    const built = buildAnthropicRequest({ ...input, body, clientHeaders: {} });
    return withWarnings({ ...built, hideUsageChunk: !clientWantsUsage(input.body) }, warnings);
  },
  readResponse(body, input) {
    const reply = filtered(readAnthropicMessage(body as Parameters<typeof readAnthropicMessage>[0]), input);
    const completionText = replyText(reply);
    return {
      usage: reply.usage,
      usageRefused: reply.usageRefused ?? null,
      model: reply.model || null,
      completionText,
      clientBody: writeOpenAICompletion(withUsage(reply, input.body, completionText), nowSeconds()),
    };
  },
  createStreamRelay({ hideUsageChunk, input }) {
    return new ConvertingStreamRelay({
      reader: new AnthropicStreamReader(),
      filters: filters(input),
      writer: new OpenAIStreamWriter({ includeUsage: !hideUsageChunk, created: nowSeconds() }),
      clientBody: input.body,
      channel: input.route.channel,
    });
  },
};
