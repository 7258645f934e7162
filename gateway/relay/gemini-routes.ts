/**
 * @module gateway/relay/gemini-routes
 * Which Gemini route a path is: a `models/{model}:method` call (its relay endpoint), or a model
 * listing. Under `/v1beta` every listing is Google's; under `/v1`, where `GET /v1/models` is also
 * OpenAI's and Anthropic's list, it is Google's only for a request that carries its key as a Gemini
 * client does (`x-goog-api-key` or `?key=`): OpenAI and Anthropic clients send a bearer token or
 * `x-api-key`.
 */
import type { IncomingMessage } from 'node:http';
import type { EndpointSpec } from './endpoints.ts';
import { geminiCountTokensEndpoint } from './gemini-count-tokens.ts';
import { batchEmbedContentsEndpoint, embedContentEndpoint } from './gemini-embed-endpoints.ts';
import { geminiCallOf, generateContentEndpoint, hasGoogleKey } from './gemini-endpoints.ts';

const endpoints: Readonly<Record<string, EndpointSpec>> = {
  generateContent: generateContentEndpoint,
  streamGenerateContent: generateContentEndpoint,
  countTokens: geminiCountTokensEndpoint,
  embedContent: embedContentEndpoint,
  batchEmbedContents: batchEmbedContentsEndpoint,
};

export function geminiEndpointOf(path: string): EndpointSpec | null {
  const call = geminiCallOf(path);
  return (call && Object.hasOwn(endpoints, call.method) && endpoints[call.method]) || null;
}

/** A Gemini model listing: `{ modelId: null }` for the list, the id for one model; null for another route. */
export function geminiModelsRoute(path: string, request: IncomingMessage): { modelId: string | null } | null {
  const match = /^\/(v1beta|v1)\/models(?:\/([^/:]+))?$/.exec(path);
  if (!match) return null;
  if (match[1] === 'v1' && !hasGoogleKey(request.headers, request.url)) return null;
  if (match[2] === undefined) return { modelId: null };
  try {
    return { modelId: decodeURIComponent(match[2]) };
  } catch {
    return null;
  }
}
