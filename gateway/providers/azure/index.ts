/**
 * @module gateway/providers/azure
 * The adapters of the `azure` channel kind (Azure OpenAI). Chat Completions and embeddings are the
 * OpenAI kind's same-format relays (the upstream's bytes go through untouched) addressed to the
 * channel's deployment; `/v1/responses` is relayed as is to Azure's v1 Responses API on channels
 * with `responses_api: true` (a stored conversation continued and the gateway's compaction items
 * restored for it, as on an OpenAI channel), and converted to Chat Completions on the others.
 */
import { openAIEmbeddingsProvider } from '../openai/embeddings.ts';
import { openAIProvider } from '../openai/index.ts';
import { openAIResponsesNative } from '../openai/responses-native.ts';
import type { Provider } from '../provider.ts';
import { responsesOn } from '../responses/responses-providers.ts';
import { buildAzureChatRequest, buildAzureEmbeddingsRequest, buildAzureResponsesRequest } from './request.ts';

export const azureProvider: Provider = { ...openAIProvider, buildRequest: buildAzureChatRequest };

export const azureEmbeddingsProvider: Provider = {
  ...openAIEmbeddingsProvider,
  buildRequest: buildAzureEmbeddingsRequest,
};

export const azureResponsesNative: Provider = { ...openAIResponsesNative, buildRequest: buildAzureResponsesRequest };

export const azureForResponses: Provider = responsesOn('azure', azureResponsesNative);
