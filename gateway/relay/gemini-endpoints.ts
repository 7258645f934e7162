/**
 * @module gateway/relay/gemini-endpoints
 * Google's Gemini API as relay endpoints (see endpoints.ts): `POST /v1beta/models/{model}:method`, and
 * the same under `/v1`, as `@google/genai` and the Gemini CLI call it. The model and streaming come
 * from the URL; the key from `x-goog-api-key`, the `key` query parameter or a bearer token; errors
 * in Google's shape (google.rpc.Status), in a stream as one last `data:` event.
 *
 * `:streamGenerateContent` is served as server-sent events (`?alt=sse`, what Google's SDKs ask for);
 * without `alt=sse` Google answers one JSON array written as it grows, which the gateway does not
 * write: such a request is a 400 saying to add `alt=sse`.
 */
import { generateContentEnvelopeSchema } from '../../contracts/gemini/client-request.ts';
import { googleErrorBody } from '../providers/gemini-ingress/error-status.ts';
import { geminiEvent } from '../providers/gemini-ingress/write-generate-stream.ts';
import { providersFor } from '../providers/index.ts';
import { bearerKey } from './authenticate.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError } from './errors.ts';
import { generateContentCertainlyValid } from './quick-check.ts';
import { DEFAULT_COMPLETION_ALLOWANCE } from './quota.ts';

type Headers = Record<string, string | string[] | undefined>;

/** `/v1beta/models/{model}:{method}` (or `/v1/…`): the model (URL-decoded) and the method. */
const METHOD_PATH = /^\/(?:v1beta|v1)\/models\/([^/]+):([A-Za-z]+)$/;

export interface GeminiCall {
  model: string;
  method: string;
}

export function geminiCallOf(path: string): GeminiCall | null {
  const match = METHOD_PATH.exec(path);
  if (!match) return null;
  let model: string;
  try {
    model = decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
  return model ? { model, method: match[2]! } : null;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function queryOf(url: string): URLSearchParams {
  const at = url.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
}

/** Google's SDKs send `x-goog-api-key`; REST examples put `?key=` in the URL; some proxies a bearer token. */
export function googleKeyOf(headers: Headers, url = ''): string | null {
  const header = single(headers['x-goog-api-key'])?.trim();
  if (header) return header;
  const query = url.includes('key=') ? queryOf(url).get('key')?.trim() : undefined;
  return query || bearerKey(single(headers['authorization']));
}

/** True when a request carries its key as a Gemini client does (so `GET /v1/models` answers Google's list). */
export function hasGoogleKey(headers: Headers, url = ''): boolean {
  return Boolean(single(headers['x-goog-api-key'])?.trim() || (url.includes('key=') && queryOf(url).get('key')));
}

function targetOf(url: string): GeminiCall {
  const path = url.split('?', 1)[0]!;
  const call = geminiCallOf(path);
  if (!call) throw new GatewayError('not_found', `No Gemini method at ${path}.`, { code: 'unknown_route' });
  return call;
}

/** What every Gemini method shares: the key, Google's error shape, the model from the URL. */
export const geminiShared = {
  keyOf: googleKeyOf,
  keyHint: '`x-goog-api-key: sk-...` (or `?key=sk-...`)',
  errorBody: (error: GatewayError) => googleErrorBody(error.status, error.message, error.code),
  streamErrorFrame: (error: GatewayError) => geminiEvent(googleErrorBody(error.status, error.message, error.code)),
  target: (url: string) => ({ model: targetOf(url).model, stream: false }),
} satisfies Partial<EndpointSpec>;

/** `maxOutputTokens` (else the default allowance) for each of `candidateCount` candidates. */
function generationAllowance(body: Record<string, unknown>): number {
  const config = body['generationConfig'] as { maxOutputTokens?: unknown; candidateCount?: unknown } | undefined;
  const max = config?.maxOutputTokens;
  const count = config?.candidateCount;
  const candidates = typeof count === 'number' && Number.isInteger(count) && count > 1 ? count : 1;
  const limit = typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : DEFAULT_COMPLETION_ALLOWANCE;
  return limit * candidates;
}

export const generateContentEndpoint: EndpointSpec = {
  ...geminiShared,
  name: 'gemini.generateContent',
  schema: generateContentEnvelopeSchema,
  certainlyValid: generateContentCertainlyValid,
  providers: providersFor('gemini.generateContent'),
  completionAllowance: generationAllowance,
  target(url) {
    const { model, method } = targetOf(url);
    const stream = method === 'streamGenerateContent';
    if (stream && queryOf(url).get('alt') !== 'sse') {
      throw new GatewayError(
        'invalid_request',
        'streamGenerateContent is served as server-sent events only: add `alt=sse` to the query (Google’s SDKs do).',
        { param: 'alt', code: 'stream_needs_alt_sse' },
      );
    }
    return { model, stream };
  },
};
