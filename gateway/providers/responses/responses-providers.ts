/**
 * @module gateway/providers/responses/responses-providers
 * The adapter that serves `/v1/responses` from any channel kind: the client's request is read into
 * the neutral request and served by the generic converting adapter (converting-provider.ts) with the
 * Responses reader and writers; everything kind-specific comes from the kind's entry (kinds.ts). An OpenAI-kind channel with
 * `responses_api: true` gets the request as is instead (openai/responses-native.ts). A request that
 * continues a stored conversation (`previous_response_id`) is first given the body its channel
 * receives (continuation.ts).
 */
import type { ChannelType } from '../../../contracts/channel-type.ts';
import { type ResponsesRequest, responsesRequestSchema } from '../../../contracts/openai/responses-request.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import { upstreamKinds } from '../kinds.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { checkedBody } from '../read-request.ts';
import { continuedInput } from './continuation.ts';
import { readResponsesRequest } from './read-responses-request.ts';
import { writeResponsesReply } from './write-responses-reply.ts';
import { ResponsesStreamWriter } from './write-responses-stream.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

// The reader checks the whole Responses contract (the endpoint only what the gateway reads); the
// writers run after it, on a body it passed.
const responsesBody = (body: Record<string, unknown>) => body as ResponsesRequest;

export const responsesFormat: IngressFormat = {
  read: (body, target) => readResponsesRequest(checkedBody(responsesRequestSchema, body), { target }),
  // Responses clients send no anthropic-version or anthropic-beta: the kind's defaults apply.
  passHeaders: false,
  writeReply: (reply, body) => writeResponsesReply(reply, responsesBody(body), nowSeconds()),
  createStreamWriter: ({ body }) =>
    new ResponsesStreamWriter({ request: responsesBody(body), createdAt: nowSeconds() }),
};

/** `/v1/responses` on a channel of `kind`. */
export function responsesOn(kind: ChannelType): Provider {
  // Made on first use: kind modules call this while the registry (kinds.ts) is still being built.
  let converted: Provider | undefined;
  const convertedProvider = () => {
    const entry = upstreamKinds[kind];
    converted ??= convertingProvider(responsesFormat, entry, entry.label ?? kind);
    return converted;
  };
  const native = (input: RelayInput) =>
    upstreamKinds[kind].capabilities.nativeResponses && input.route.channel.responsesApi === true;
  return {
    buildRequest(client) {
      const input = continuedInput(client, native(client));
      return native(input) ? openAIResponsesNative.buildRequest(input) : convertedProvider().buildRequest(input);
    },
    readResponse(body, client) {
      const input = continuedInput(client, native(client));
      return native(input)
        ? openAIResponsesNative.readResponse(body, input)
        : convertedProvider().readResponse(body, input);
    },
    createStreamRelay(options) {
      const input = continuedInput(options.input, native(options.input));
      const provider = native(input) ? openAIResponsesNative : convertedProvider();
      return provider.createStreamRelay({ ...options, input });
    },
  };
}
