/**
 * @module gateway/providers/openai/request
 * The upstream request for an OpenAI-compatible channel. `base_url` is taken as the OpenAI SDK takes it
 * (`https://api.openai.com/v1`). Streams always ask for `stream_options.include_usage` so the gateway
 * counts exact tokens; the usage chunk is hidden from clients that did not ask for it.
 */
import { withMembers } from '../json-members.ts';
import { type BuiltRequest, clientTextOf, type RelayInput } from '../provider.ts';

export function buildOpenAIRequest(input: RelayInput): BuiltRequest {
  const { route, body, stream, clientQuery } = input;
  const clientText = clientTextOf(input);
  // What differs from the client's body: the channel's model name, and on a stream the usage chunk.
  const changed: Record<string, unknown> = {};
  if (body['model'] !== route.upstreamModel) changed['model'] = route.upstreamModel;
  let hideUsageChunk = false;
  if (stream) {
    const streamOptions = (body['stream_options'] ?? {}) as Record<string, unknown>;
    hideUsageChunk = streamOptions['include_usage'] !== true;
    if (hideUsageChunk) changed['stream_options'] = { ...streamOptions, include_usage: true };
  }
  return {
    upstream: {
      url: `${route.channel.baseUrl}/chat/completions${clientQuery ?? ''}`,
      headers: {
        authorization: `Bearer ${route.channel.apiKey}`,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      body: clientText === undefined ? JSON.stringify({ ...body, ...changed }) : withMembers(clientText, changed),
    },
    hideUsageChunk,
  };
}
