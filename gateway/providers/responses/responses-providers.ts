/**
 * @module gateway/providers/responses/responses-providers
 * The providers that serve `/v1/responses`: the client's request is read into the neutral request
 * and written for the channel's kind (converted-request.ts); the upstream's reply is read into the
 * neutral reply by that kind's reader and written in the Responses shape. An OpenAI-kind channel
 * with `responses_api: true` gets the request as is (openai/responses-native.ts).
 */
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import { buildAnthropicRequest } from '../anthropic/request.ts';
import { ConvertingStreamRelay } from '../conversion/converting-stream-relay.ts';
import { JsonToolToContent, jsonResponseTool, jsonToolToContentReply } from '../conversion/json-response-tool.ts';
import { readAnthropicMessage } from '../conversion/read-anthropic-message.ts';
import { AnthropicStreamReader } from '../conversion/read-anthropic-stream.ts';
import { readOpenAICompletion } from '../conversion/read-openai-completion.ts';
import { OpenAIStreamReader } from '../conversion/read-openai-stream.ts';
import type { Reply, ReplyPartFilter } from '../conversion/reply.ts';
import { replyText, withUsage } from '../conversion/reply-text.ts';
import { ThinkingToContent, thinkingToContentReply } from '../conversion/thinking-to-content.ts';
import { buildOpenAIRequest } from '../openai/request.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider, RelayInput, ResponseReading } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { convertedFor } from './converted-request.ts';
import { writeResponsesReply } from './write-responses-reply.ts';
import { ResponsesStreamWriter } from './write-responses-stream.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);
type Kind = 'openai' | 'anthropic';

function filters(kind: Kind, input: RelayInput): ReplyPartFilter[] {
  const json = kind === 'anthropic' ? jsonResponseTool(convertedFor(kind, input.body).chatBody) : null;
  return [
    ...(json ? [new JsonToolToContent(json.name)] : []),
    ...(input.route.channel.thinkingToContent ? [new ThinkingToContent()] : []),
  ];
}

function filtered(kind: Kind, reply: Reply, input: RelayInput): Reply {
  const json = kind === 'anthropic' ? jsonResponseTool(convertedFor(kind, input.body).chatBody) : null;
  const answered = json ? jsonToolToContentReply(reply, json.name) : reply;
  return input.route.channel.thinkingToContent ? thinkingToContentReply(answered) : answered;
}

function reading(kind: Kind, read: Reply, input: RelayInput): ResponseReading {
  const reply = filtered(kind, read, input);
  const completionText = replyText(reply);
  const chatBody = convertedFor(kind, input.body).chatBody as Record<string, unknown>;
  return {
    usage: reply.usage,
    usageRefused: reply.usageRefused ?? null,
    model: reply.model || null,
    completionText,
    clientBody: writeResponsesReply(
      withUsage(reply, chatBody, completionText),
      input.body as ResponsesRequest,
      nowSeconds(),
    ),
  };
}

function streamRelay(kind: Kind, input: RelayInput) {
  return new ConvertingStreamRelay({
    reader: kind === 'openai' ? new OpenAIStreamReader() : new AnthropicStreamReader(),
    filters: filters(kind, input),
    writer: new ResponsesStreamWriter({ request: input.body as ResponsesRequest, createdAt: nowSeconds() }),
    clientBody: convertedFor(kind, input.body).chatBody as Record<string, unknown>,
    channel: input.route.channel,
  });
}

/** `/v1/responses` on an OpenAI-kind channel: natively when it serves the Responses API, else as chat completions. */
export const responsesOnOpenAI: Provider = {
  buildRequest(input) {
    if (input.route.channel.responsesApi) return openAIResponsesNative.buildRequest(input);
    const { body, warnings } = convertedFor('openai', input.body);
    return withWarnings(buildOpenAIRequest({ ...input, body }), warnings);
  },
  readResponse(body, input) {
    if (input.route.channel.responsesApi) return openAIResponsesNative.readResponse(body, input);
    return reading('openai', readOpenAICompletion(body as Parameters<typeof readOpenAICompletion>[0]), input);
  },
  createStreamRelay(options) {
    if (options.input.route.channel.responsesApi) return openAIResponsesNative.createStreamRelay(options);
    return streamRelay('openai', options.input);
  },
};

/** `/v1/responses` on an `anthropic` channel, as a Messages request. */
export const responsesOnAnthropic: Provider = {
  buildRequest(input) {
    const { body, warnings } = convertedFor('anthropic', input.body);
    // Responses clients send no anthropic-version or anthropic-beta; the defaults apply.
    const built = buildAnthropicRequest({ ...input, body, clientHeaders: {} });
    return withWarnings(built, warnings);
  },
  readResponse: (body, input) =>
    reading('anthropic', readAnthropicMessage(body as Parameters<typeof readAnthropicMessage>[0]), input),
  createStreamRelay: ({ input }) => streamRelay('anthropic', input),
};
