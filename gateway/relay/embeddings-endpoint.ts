/**
 * @module gateway/relay/embeddings-endpoint
 * `POST /v1/embeddings` as relay data (see endpoints.ts): OpenAI's key header and error shape, the
 * embeddings contract, OpenAI-kind and Azure channels only (Anthropic has no embeddings API), and the
 * tokenizer's estimate of the prompt when an upstream reports no usage. Everything else (key checks,
 * limits, quota, routing, failover, breakers, events) is the chat relay's own path.
 */
import { embeddingsRequestSchema } from '../../contracts/openai/embeddings-request.ts';
import { azureEmbeddingsProvider } from '../providers/azure/index.ts';
import { openAIEmbeddingsProvider } from '../providers/openai/embeddings.ts';
import { bearerKey } from './authenticate.ts';
import type { ChannelRouter } from './channel-router.ts';
import { checkDimensions } from './embedding-dimensions.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError } from './errors.ts';
import { estimateEmbeddingUsage } from './estimate-embedding-usage.ts';
import { openAIErrorBody } from './render-error.ts';

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A model no OpenAI-kind or Azure channel lists: a chat-only model on Anthropic channels is named as such. */
function unservedModel(model: string, router: ChannelRouter): GatewayError {
  if (router.routes(model, ['anthropic']).length > 0) {
    return new GatewayError(
      'invalid_request',
      `The model "${model}" is served only by Anthropic channels, which have no embeddings API. Use an embedding model of an OpenAI-compatible or Azure channel (GET /v1/models lists them).`,
      { param: 'model', code: 'model_not_supported' },
    );
  }
  return new GatewayError(
    'not_found',
    `The model "${model}" is not served by any channel. List the available models with GET /v1/models.`,
    { param: 'model', code: 'model_not_found' },
  );
}

export const embeddingsEndpoint: EndpointSpec = {
  name: 'embeddings',
  schema: embeddingsRequestSchema,
  // Not on the chat hot path: the zod contract checks every body (a few µs for ordinary inputs).
  certainlyValid: () => false,
  keyOf: (headers) => bearerKey(single(headers['authorization'])),
  keyHint: '`Authorization: Bearer sk-...`',
  providers: { openai: openAIEmbeddingsProvider, azure: azureEmbeddingsProvider },
  errorBody: (error) => openAIErrorBody(error),
  // Never streamed; the frame exists because every endpoint can render one.
  streamErrorFrame: (error) => `data: ${JSON.stringify(openAIErrorBody(error))}\n\n`,
  // Nothing to resolve: the hook is where the model is known and nothing is held yet.
  resolveModel(body) {
    const model = body['model'] as string;
    checkDimensions(model, body['dimensions']);
    return { model, body, warnings: [] };
  },
  estimateUsage: (body) => estimateEmbeddingUsage(body),
  unservedModel,
};
