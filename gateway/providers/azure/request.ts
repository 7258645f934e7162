/**
 * @module gateway/providers/azure/request
 * The upstream requests of an `azure` channel: the OpenAI kind's bodies (model mapped, the usage chunk
 * asked for on streams, the client's own fields kept), readdressed to the channel's deployment and
 * authenticated with `api-key`. Azure routes by deployment, not by the body's `model`; the body keeps
 * it anyway (Azure ignores it), as the OpenAI kind writes it.
 */
import { buildOpenAIRequest } from '../openai/request.ts';
import type { BuiltRequest, RelayInput } from '../provider.ts';
import { azureHeaders, deploymentUrl, responsesUrl } from './address.ts';

export function buildAzureChatRequest(input: RelayInput): BuiltRequest {
  const { upstream, hideUsageChunk } = buildOpenAIRequest(input);
  const { channel } = input.route;
  return {
    upstream: {
      url: deploymentUrl(channel, input.route.upstreamModel, 'chat/completions'),
      headers: azureHeaders(channel, input.stream),
      body: upstream.body,
    },
    hideUsageChunk,
  };
}

export function buildAzureEmbeddingsRequest({ route, body }: RelayInput): BuiltRequest {
  return {
    upstream: {
      url: deploymentUrl(route.channel, route.upstreamModel, 'embeddings'),
      headers: azureHeaders(route.channel, false),
      body: JSON.stringify({ ...body, model: route.upstreamModel }),
    },
    hideUsageChunk: false,
  };
}

/** `/v1/responses` as the client wrote it, on Azure's v1 surface: the deployment is the body's model. */
export function buildAzureResponsesRequest({ route, body, stream }: RelayInput): BuiltRequest {
  return {
    upstream: {
      url: responsesUrl(route.channel),
      headers: azureHeaders(route.channel, stream),
      body: JSON.stringify({ ...body, model: route.upstreamModel }),
    },
    hideUsageChunk: false,
  };
}
