/**
 * @module gateway/providers/conversion/openai-for-messages
 * The provider that serves `/v1/messages` from an `openai` channel: the Anthropic request is converted
 * to a Chat Completions request (streams ask for the usage chunk), and the reply back to Anthropic's
 * shapes: reasoning as thinking blocks, or as `<think>` text on channels with thinking_to_content.
 */
import { buildOpenAIRequest } from '../openai/request.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { anthropicRequestToOpenAI } from './anthropic-request-to-openai.ts';
import { ConvertingStreamRelay } from './converting-stream-relay.ts';
import { readOpenAICompletion } from './read-openai-completion.ts';
import { OpenAIStreamReader } from './read-openai-stream.ts';
import { replyText, withUsage } from './reply-text.ts';
import { ThinkingToContent, thinkingToContentReply } from './thinking-to-content.ts';
import { writeAnthropicMessage } from './write-anthropic-message.ts';
import { AnthropicStreamWriter } from './write-anthropic-stream.ts';

const thinkingToContent = (input: RelayInput) => input.route.channel.thinkingToContent;

export const openAIForMessages: Provider = {
  buildRequest(input) {
    const { body, warnings } = anthropicRequestToOpenAI(input.body);
    return withWarnings(buildOpenAIRequest({ ...input, body }), warnings);
  },
  readResponse(body, input) {
    const read = readOpenAICompletion(body as Parameters<typeof readOpenAICompletion>[0]);
    const reply = thinkingToContent(input) ? thinkingToContentReply(read) : read;
    const completionText = replyText(reply);
    return {
      usage: reply.usage,
      usageRefused: reply.usageRefused ?? null,
      model: reply.model || null,
      completionText,
      clientBody: writeAnthropicMessage(withUsage(reply, input.body, completionText)),
    };
  },
  createStreamRelay({ input }) {
    return new ConvertingStreamRelay({
      reader: new OpenAIStreamReader(),
      filters: thinkingToContent(input) ? [new ThinkingToContent()] : [],
      writer: new AnthropicStreamWriter(),
      clientBody: input.body,
      channel: input.route.channel,
    });
  },
};
