/**
 * @module gateway/providers/azure/messages
 * `/v1/messages` on an `azure` channel: the OpenAI kind's conversion (the Anthropic request as a Chat
 * Completions body, the reply back in Anthropic's shapes) sent to the channel's deployment, its stream
 * read with the Azure reader (which skips the prompt-filter chunk). A filtered completion
 * (`finish_reason: "content_filter"`) reaches Anthropic clients as `stop_reason: "refusal"`.
 */
import { anthropicRequestToOpenAI } from '../conversion/anthropic-request-to-openai.ts';
import { ConvertingStreamRelay } from '../conversion/converting-stream-relay.ts';
import { openAIForMessages } from '../conversion/openai-for-messages.ts';
import { ThinkingToContent } from '../conversion/thinking-to-content.ts';
import { AnthropicStreamWriter } from '../conversion/write-anthropic-stream.ts';
import type { Provider } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { buildAzureChatRequest } from './request.ts';
import { AzureStreamReader } from './stream-reader.ts';

export const azureForMessages: Provider = {
  buildRequest(input) {
    const { body, warnings } = anthropicRequestToOpenAI(input.body);
    return withWarnings(buildAzureChatRequest({ ...input, body }), warnings);
  },
  readResponse: openAIForMessages.readResponse,
  createStreamRelay: ({ input }) =>
    new ConvertingStreamRelay({
      reader: new AzureStreamReader(),
      filters: input.route.channel.thinkingToContent ? [new ThinkingToContent()] : [],
      writer: new AnthropicStreamWriter(),
      clientBody: input.body,
      channel: input.route.channel,
    }),
};
