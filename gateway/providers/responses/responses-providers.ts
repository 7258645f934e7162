/**
 * @module gateway/providers/responses/responses-providers
 * The adapter that serves `/v1/responses` from any channel kind: the client's request is read into
 * the neutral request and served by the generic converting adapter (converting-provider.ts) with the
 * Responses reader and writers; everything kind-specific comes from the kind's entry (kinds.ts). An OpenAI-kind channel with
 * `responses_api: true` gets the request as is instead (openai/responses-native.ts). A request that
 * continues a stored conversation (`previous_response_id`) or carries the gateway's compaction items
 * is first given the body its channel receives (continuation.ts, compaction.ts). A request with a
 * `compaction_trigger` goes as is to a native channel whose kind compacts itself, and is answered by
 * the gateway's summarising call everywhere else (compaction-format.ts).
 */
import type { ChannelType } from '../../../contracts/channel-type.ts';
import { type ResponsesRequest, responsesRequestSchema } from '../../../contracts/openai/responses-request.ts';
import { convertingProvider, type IngressFormat } from '../converting-provider.ts';
import { upstreamKinds } from '../kinds.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { checkedBody } from '../read-request.ts';
import { hasCompactionTrigger, preparedInput } from './compaction.ts';
import { compactEndpointFormat, compactionTriggerFormat } from './compaction-format.ts';
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

/** Whether an attempt on this route goes to the upstream's own Responses API. */
function nativeOn(kind: ChannelType, input: RelayInput): boolean {
  return upstreamKinds[kind].capabilities.nativeResponses && input.route.channel.responsesApi === true;
}

/** Whether this route compacts itself; else the gateway's summarising call compacts. */
export function compactsNatively(kind: ChannelType, input: RelayInput): boolean {
  return nativeOn(kind, input) && upstreamKinds[kind].capabilities.nativeCompaction === true;
}

/** One provider per attempt, chosen by what its route and the body ask for, over the body prepared for it. */
function choosing(choose: (input: RelayInput) => { provider: Provider; native: boolean }): Provider {
  const prepared = (client: RelayInput) => {
    const { provider, native } = choose(client);
    return { provider, input: preparedInput(client, native) };
  };
  return {
    buildRequest(client) {
      const { provider, input } = prepared(client);
      return provider.buildRequest(input);
    },
    readResponse(body, client) {
      const { provider, input } = prepared(client);
      return provider.readResponse(body, input);
    },
    createStreamRelay(options) {
      const { provider, input } = prepared(options.input);
      return provider.createStreamRelay({ ...options, input });
    },
  };
}

/**
 * The converting adapter of a format on `kind`, made on first use: kind modules call this while the
 * registry (kinds.ts) and this module are still being evaluated.
 */
function lazily(format: () => IngressFormat, kind: ChannelType): () => Provider {
  let provider: Provider | undefined;
  return () => {
    const entry = upstreamKinds[kind];
    provider ??= convertingProvider(format(), entry, entry.label ?? kind);
    return provider;
  };
}

/** Whether a `/v1/responses` attempt on this route goes to the upstream's own Responses API, as `responsesOn` chooses. */
export function relaysNatively(kind: ChannelType, input: RelayInput): boolean {
  if (hasCompactionTrigger(input.body) && !compactsNatively(kind, input)) return false;
  return nativeOn(kind, input);
}

/** `/v1/responses` on a channel of `kind`; `native` relays it as is where the channel serves the Responses API. */
export function responsesOn(kind: ChannelType, native: Provider = openAIResponsesNative): Provider {
  const converted = lazily(() => responsesFormat, kind);
  const compacting = lazily(() => compactionTriggerFormat, kind);
  return choosing((input) => {
    if (!relaysNatively(kind, input)) {
      return hasCompactionTrigger(input.body)
        ? { provider: compacting(), native: false }
        : { provider: converted(), native: false };
    }
    return { provider: native, native: true };
  });
}

/** `/v1/responses/compact` on a channel of `kind`: as is where the channel compacts itself, else the gateway's summarising call. */
export function compactOn(kind: ChannelType, native: Provider): Provider {
  const converted = lazily(() => compactEndpointFormat, kind);
  return choosing((input) =>
    compactsNatively(kind, input) ? { provider: native, native: true } : { provider: converted(), native: false },
  );
}
