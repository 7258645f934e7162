/**
 * @module gateway/providers/azure/kind
 * The `azure` kind's entry in the neutral core (kinds.ts): Azure OpenAI speaks the OpenAI wire
 * format, so the request writer and the reply reader are the OpenAI kind's; its stream reader skips
 * Azure's prompt-filter chunk, and its requests are addressed to the channel's deployment. Chat
 * Completions go through as they are, and `/v1/responses` too on channels with `responses_api`
 * (index.ts); messages are served by the generic converting adapter.
 */
import { readOpenAICompletion } from '../conversion/read-openai-completion.ts';
import type { UpstreamKind } from '../kinds.ts';
import { writeChatRequest } from '../openai/write-chat-request.ts';
import { azureForResponses, azureProvider } from './index.ts';
import { buildAzureChatRequest } from './request.ts';
import { AzureStreamReader } from './stream-reader.ts';

export const azureKind: UpstreamKind = {
  label: 'Azure OpenAI',
  passThrough: { 'chat.completions': azureProvider, responses: azureForResponses },
  writeRequest(request) {
    const warnings: string[] = [];
    return { body: writeChatRequest(request, warnings), warnings, answerTool: null };
  },
  readReply: (body) => readOpenAICompletion(body as Parameters<typeof readOpenAICompletion>[0]),
  createStreamReader: () => new AzureStreamReader(),
  buildRequest: buildAzureChatRequest,
  testRequest: (model) => ({ model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] }),
  // Native Responses goes to Azure's v1 surface (index.ts), not to the OpenAI kind's `/responses`.
  capabilities: { signedThinking: false, nativeResponses: true, systemTurns: true, eventStreamTypeOnly: true },
};
