/**
 * @module gateway/relay/gemini-embed-endpoints
 * Gemini's `:embedContent` and `:batchEmbedContents` as relay endpoints (see endpoints.ts and
 * gemini-endpoints.ts): gemini channels receive them as written, OpenAI-kind and Azure channels as
 * OpenAI embeddings (gemini-ingress/embeddings.ts); Anthropic and Bedrock have no embeddings API.
 * Recorded, limited and priced like `/v1/embeddings`: the prompt's tokens, counted with the tokenizer
 * when the upstream reports none (Google never does).
 */
import { batchEmbedContentsRequestSchema, embedContentRequestSchema } from '../../contracts/gemini/client-request.ts';
import { azureEmbeddingsProvider } from '../providers/azure/index.ts';
import { geminiEmbeddingsPassThrough } from '../providers/gemini/methods.ts';
import { embeddedText, embedRequestsOf, geminiEmbeddingsOn } from '../providers/gemini-ingress/embeddings.ts';
import { openAIEmbeddingsProvider } from '../providers/openai/embeddings.ts';
import type { TokenCounts } from '../providers/provider.ts';
import type { ChannelRouter } from './channel-router.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError } from './errors.ts';
import { geminiShared } from './gemini-endpoints.ts';
import { countingBudget, countTokens } from './tokenizer.ts';

function estimate(body: Record<string, unknown>, batch: boolean): TokenCounts {
  const budget = countingBudget();
  const promptTokens = embedRequestsOf(body, batch).reduce(
    (sum, request) => sum + countTokens(embeddedText(request), budget),
    0,
  );
  return { promptTokens, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

function unservedModel(model: string, router: ChannelRouter): GatewayError {
  if (router.routes(model, ['anthropic', 'bedrock']).length > 0) {
    return new GatewayError(
      'invalid_request',
      `The model "${model}" is served only by channels without an embeddings API. Use an embedding model of a Gemini, OpenAI-compatible or Azure channel (GET /v1beta/models lists them).`,
      { param: 'model', code: 'model_not_supported' },
    );
  }
  return new GatewayError(
    'not_found',
    `The model "${model}" is not served by any channel. List the available models with GET /v1beta/models.`,
    { param: 'model', code: 'model_not_found' },
  );
}

function embedEndpoint(batch: boolean): EndpointSpec {
  return {
    ...geminiShared,
    name: batch ? 'gemini.batchEmbedContents' : 'gemini.embedContent',
    schema: batch ? batchEmbedContentsRequestSchema : embedContentRequestSchema,
    certainlyValid: () => false,
    providers: {
      gemini: geminiEmbeddingsPassThrough(batch ? 'batchEmbedContents' : 'embedContent'),
      openai: geminiEmbeddingsOn(openAIEmbeddingsProvider, batch, 'OpenAI'),
      azure: geminiEmbeddingsOn(azureEmbeddingsProvider, batch, 'Azure'),
    },
    estimateUsage: (body) => estimate(body, batch),
    unservedModel,
  };
}

export const embedContentEndpoint = embedEndpoint(false);
export const batchEmbedContentsEndpoint = embedEndpoint(true);
