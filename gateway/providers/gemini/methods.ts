/**
 * @module gateway/providers/gemini/methods
 * Gemini methods other than generateContent relayed to a gemini channel as the client wrote them:
 * `:countTokens`, `:embedContent` and `:batchEmbedContents`. The body goes as sent but for the
 * `models/{model}` names inside it (a batch's requests, a count's `generateContentRequest`), which
 * Google checks against the URL's model and so must name the channel's model too. Embeddings report
 * no usage: the relay counts their text.
 */
import type { BuiltRequest, Provider, RelayInput } from '../provider.ts';
import { GEMINI_API_VERSION } from './request.ts';

export type GeminiMethod = 'countTokens' | 'embedContent' | 'batchEmbedContents';

type Body = Record<string, unknown>;

function renamed(value: unknown, model: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return 'model' in value ? { ...value, model: `models/${model}` } : value;
}

function upstreamBody(method: GeminiMethod, body: Body, model: string): Body {
  if (method === 'batchEmbedContents' && Array.isArray(body['requests'])) {
    return { ...body, requests: body['requests'].map((request) => renamed(request, model)) };
  }
  if (method === 'countTokens' && body['generateContentRequest'] !== undefined) {
    return { ...body, generateContentRequest: renamed(body['generateContentRequest'], model) };
  }
  return method === 'embedContent' && 'model' in body ? { ...body, model: `models/${model}` } : body;
}

export function buildGeminiMethodRequest(method: GeminiMethod, { route, body }: RelayInput): BuiltRequest {
  const model = route.upstreamModel;
  return {
    upstream: {
      url: `${route.channel.baseUrl}/${GEMINI_API_VERSION}/models/${encodeURIComponent(model)}:${method}`,
      headers: {
        'x-goog-api-key': route.channel.apiKey,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(upstreamBody(method, body, model)),
    },
    hideUsageChunk: false,
  };
}

/** `:embedContent` or `:batchEmbedContents` on a gemini channel: the upstream's bytes go back untouched. */
export function geminiEmbeddingsPassThrough(method: 'embedContent' | 'batchEmbedContents'): Provider {
  return {
    buildRequest: (input) => buildGeminiMethodRequest(method, input),
    readResponse: () => ({ usage: null, model: null, completionText: '' }),
    createStreamRelay() {
      throw new Error('embeddings are never streamed');
    },
  };
}
