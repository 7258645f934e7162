/**
 * @module gateway/providers/openai/request
 * The upstream request for an OpenAI-compatible channel. `base_url` is taken as the OpenAI SDK takes it
 * (`https://api.openai.com/v1`). Streams always ask for `stream_options.include_usage` so the gateway
 * counts exact tokens; the usage chunk is hidden from clients that did not ask for it.
 */
import type { BuiltRequest, RelayInput } from '../provider.ts';

export function buildOpenAIRequest({ route, body, stream, clientQuery }: RelayInput): BuiltRequest {
  const upstreamBody: Record<string, unknown> = { ...body, model: route.upstreamModel };
  let hideUsageChunk = false;
  if (stream) {
    const streamOptions = (body['stream_options'] ?? {}) as Record<string, unknown>;
    hideUsageChunk = streamOptions['include_usage'] !== true;
    upstreamBody['stream_options'] = { ...streamOptions, include_usage: true };
  }
  return {
    upstream: {
      url: `${route.channel.baseUrl}/chat/completions${clientQuery ?? ''}`,
      headers: {
        authorization: `Bearer ${route.channel.apiKey}`,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify(upstreamBody),
    },
    hideUsageChunk,
  };
}
