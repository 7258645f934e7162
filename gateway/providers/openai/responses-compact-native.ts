/**
 * @module gateway/providers/openai/responses-compact-native
 * `/v1/responses/compact` and `/v1/responses/input_tokens` relayed as they are to a channel that
 * serves OpenAI's own Responses API: the body goes to `<base_url>/responses/compact` (or
 * `/responses/input_tokens`) with only the model mapped, and the reply's bytes go back untouched. A
 * compaction's usage is read as a response's is (responses-native.ts); neither is ever streamed.
 */
import type { BuiltRequest, Provider, RelayInput } from '../provider.ts';
import { buildResponsesRequest, openAIResponsesNative } from './responses-native.ts';

export function buildResponsesSubRequest(input: RelayInput, operation: 'compact' | 'input_tokens'): BuiltRequest {
  const built = buildResponsesRequest({ ...input, stream: false });
  const url = `${input.route.channel.baseUrl}/responses/${operation}${input.clientQuery ?? ''}`;
  return { ...built, upstream: { ...built.upstream, url } };
}

export const openAIResponsesCompactNative: Provider = {
  buildRequest: (input) => buildResponsesSubRequest(input, 'compact'),
  readResponse: (body, input) => openAIResponsesNative.readResponse(body, input),
  createStreamRelay: (options) => openAIResponsesNative.createStreamRelay(options),
};
