/**
 * @module gateway/providers/gemini/request
 * The upstream request for a Gemini channel: Google AI Studio's REST API, `base_url` as Google's
 * SDKs take it (`https://generativelanguage.googleapis.com`), the key in `x-goog-api-key` (never in
 * the URL, where logs and proxies would keep it), the model in the path, and `alt=sse` for a stream
 * so that it arrives as server-sent events rather than one JSON array.
 */
import { type BuiltRequest, clientTextOf, type RelayInput } from '../provider.ts';

export const GEMINI_API_VERSION = 'v1beta';

export function geminiUrl(baseUrl: string, model: string, stream: boolean): string {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return `${baseUrl}/${GEMINI_API_VERSION}/models/${encodeURIComponent(model)}:${method}`;
}

export function buildGeminiRequest(input: RelayInput): BuiltRequest {
  const { route, body, stream } = input;
  return {
    upstream: {
      url: geminiUrl(route.channel.baseUrl, route.upstreamModel, stream),
      headers: {
        'x-goog-api-key': route.channel.apiKey,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      // The client's own bytes, or a converted body's printed text (the model is in the URL, not the body).
      body: clientTextOf(input) ?? JSON.stringify(body),
    },
    hideUsageChunk: false,
  };
}
