/**
 * @module gateway/providers/responses/responses-providers
 * The adapter that serves `/v1/responses` from any channel kind: the client's request is read into
 * the neutral request and written by the kind's request writer (converted-request.ts); the
 * upstream's reply is read into the neutral reply by the kind's reader and written in the Responses
 * shape. Everything kind-specific comes from the kind's entry (kinds.ts). An OpenAI-kind channel with
 * `responses_api: true` gets the request as is instead (openai/responses-native.ts). A request that
 * continues a stored conversation (`previous_response_id`) is first given the body its channel
 * receives (continuation.ts).
 */
import type { ChannelType } from '../../../contracts/channel-type.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import { ConvertingStreamRelay } from '../conversion/converting-stream-relay.ts';
import { JsonToolToContent, jsonToolToContentReply } from '../conversion/json-response-tool.ts';
import type { Reply, ReplyPartFilter } from '../conversion/reply.ts';
import { replyText, withModel, withUsage } from '../conversion/reply-text.ts';
import { ThinkingToContent, thinkingToContentReply } from '../conversion/thinking-to-content.ts';
import { upstreamKinds } from '../kinds.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider, RelayInput, ResponseReading } from '../provider.ts';
import { withWarnings } from '../provider-extensions.ts';
import { continuedInput } from './continuation.ts';
import { convertedFor } from './converted-request.ts';
import { writeResponsesReply } from './write-responses-reply.ts';
import { ResponsesStreamWriter } from './write-responses-stream.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function filters(kind: ChannelType, input: RelayInput): ReplyPartFilter[] {
  const answerTool = convertedFor(kind, input.body).answerTool;
  return [
    ...(answerTool ? [new JsonToolToContent(answerTool)] : []),
    ...(input.route.channel.thinkingToContent ? [new ThinkingToContent()] : []),
  ];
}

function filtered(kind: ChannelType, reply: Reply, input: RelayInput): Reply {
  const answerTool = convertedFor(kind, input.body).answerTool;
  const answered = answerTool ? jsonToolToContentReply(reply, answerTool) : reply;
  return input.route.channel.thinkingToContent ? thinkingToContentReply(answered) : answered;
}

function reading(kind: ChannelType, body: unknown, input: RelayInput): ResponseReading {
  const reply = filtered(kind, withModel(upstreamKinds[kind].readReply(body), input.route.upstreamModel), input);
  const completionText = replyText(reply);
  return {
    usage: reply.usage,
    usageRefused: reply.usageRefused ?? null,
    model: reply.model || null,
    completionText,
    clientBody: writeResponsesReply(
      withUsage(reply, input.body, completionText),
      input.body as ResponsesRequest,
      nowSeconds(),
    ),
  };
}

/** `/v1/responses` on a channel of `kind`. */
export function responsesOn(kind: ChannelType): Provider {
  const native = (input: RelayInput) =>
    upstreamKinds[kind].capabilities.nativeResponses && input.route.channel.responsesApi === true;
  return {
    buildRequest(client) {
      const input = continuedInput(client, native(client));
      if (native(input)) return openAIResponsesNative.buildRequest(input);
      const { body, warnings } = convertedFor(kind, input.body);
      // Responses clients send no anthropic-version or anthropic-beta: the kind's defaults apply.
      return withWarnings(upstreamKinds[kind].buildRequest({ ...input, body, clientHeaders: {} }), warnings);
    },
    readResponse(body, client) {
      const input = continuedInput(client, native(client));
      if (native(input)) return openAIResponsesNative.readResponse(body, input);
      return reading(kind, body, input);
    },
    createStreamRelay(options) {
      const input = continuedInput(options.input, native(options.input));
      if (native(input)) return openAIResponsesNative.createStreamRelay({ ...options, input });
      return new ConvertingStreamRelay({
        reader: upstreamKinds[kind].createStreamReader(),
        filters: filters(kind, input),
        writer: new ResponsesStreamWriter({ request: input.body as ResponsesRequest, createdAt: nowSeconds() }),
        clientBody: input.body,
        channel: input.route.channel,
        askedModel: input.route.upstreamModel,
      });
    },
  };
}
