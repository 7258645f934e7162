/**
 * @module gateway/relay/unknown-route
 * The answer to a path under an API prefix that no route serves, in the error shape a client of
 * that prefix parses: OpenAI's under `/v1` (Anthropic's under `/v1/messages`, whose SDK reads only
 * its own), Google's under `/v1beta`. A known path asked with another method is a 405 naming the
 * methods it takes. An SDK that meets Express's HTML "Cannot POST" page reports a parse error
 * instead of what was wrong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GeminiErrorBody } from '../../contracts/gemini/error.ts';
import { timeOrderedId } from '../events/time-ordered-id.ts';
import { GatewayError } from './errors.ts';
import { anthropicErrorBody, openAIErrorBody } from './render-error.ts';

/** Paths served with methods other than POST (the relay endpoints take POST and answer 405 themselves). */
const otherMethods: Readonly<Record<string, string>> = { '/v1/models': 'GET', '/v1beta/models': 'GET' };

/** True for the paths this module answers: everything under `/v1` and `/v1beta` no route took. */
export function isApiPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/') || path === '/v1beta' || path.startsWith('/v1beta/');
}

function googleBody(status: number, message: string): GeminiErrorBody {
  return { error: { code: status, message, status: status === 405 ? 'UNIMPLEMENTED' : 'NOT_FOUND' } };
}

export function answerUnknownRoute(request: IncomingMessage, response: ServerResponse, path: string): void {
  const method = request.method ?? 'GET';
  const allowed = otherMethods[path];
  const status = allowed ? 405 : 404;
  const message = allowed
    ? `${method} is not served on ${path}; use ${allowed}.`
    : `No route ${method} ${path}. The API serves POST /v1/chat/completions, /v1/messages, /v1/responses, /v1/responses/compact, /v1/responses/input_tokens, /v1/embeddings, /v1/messages/count_tokens, GET /v1/models, and Gemini's POST /v1beta/models/{model}:generateContent, :streamGenerateContent, :countTokens, :embedContent, :batchEmbedContents and GET /v1beta/models.`;
  const requestId = timeOrderedId();
  const error = new GatewayError(allowed ? 'invalid_request' : 'not_found', message, {
    status,
    code: allowed ? 'method_not_allowed' : 'unknown_route',
  });
  let body: unknown;
  if (path.startsWith('/v1beta')) body = googleBody(status, message);
  else if (path.startsWith('/v1/messages')) body = anthropicErrorBody(error, requestId);
  else body = openAIErrorBody(error);
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...(allowed && { allow: allowed }),
  });
  response.end(JSON.stringify(body));
}
