/**
 * @module gateway/providers/azure
 * The adapters of the `azure` channel kind (Azure OpenAI). Chat Completions and embeddings are the
 * OpenAI kind's same-format relays (the upstream's bytes go through untouched) addressed to the
 * channel's deployment; `/v1/responses` is relayed as is to Azure's v1 Responses API on channels
 * with `responses_api: true`, and converted to Chat Completions on the others.
 */
import { openAIEmbeddingsProvider } from '../openai/embeddings.ts';
import { openAIProvider } from '../openai/index.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider, RelayInput } from '../provider.ts';
import { responsesOn } from '../responses/responses-providers.ts';
import { buildAzureChatRequest, buildAzureEmbeddingsRequest, buildAzureResponsesRequest } from './request.ts';

export const azureProvider: Provider = { ...openAIProvider, buildRequest: buildAzureChatRequest };

export const azureEmbeddingsProvider: Provider = {
  ...openAIEmbeddingsProvider,
  buildRequest: buildAzureEmbeddingsRequest,
};

export const azureResponsesNative: Provider = { ...openAIResponsesNative, buildRequest: buildAzureResponsesRequest };

const native = (input: RelayInput) => input.route.channel.responsesApi === true;

const converted = responsesOn('azure');

export const azureForResponses: Provider = {
  buildRequest: (input) => (native(input) ? azureResponsesNative.buildRequest(input) : converted.buildRequest(input)),
  readResponse: (body, input) =>
    native(input) ? azureResponsesNative.readResponse(body, input) : converted.readResponse(body, input),
  createStreamRelay: (options) =>
    native(options.input) ? azureResponsesNative.createStreamRelay(options) : converted.createStreamRelay(options),
};
