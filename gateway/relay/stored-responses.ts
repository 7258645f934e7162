/**
 * @module gateway/relay/stored-responses
 * `GET` and `DELETE /v1/responses/{id}`, with the key as on `POST /v1/responses`: the stored response
 * in the Responses shape, or its deletion (a `response.deleted` event) answered in OpenAI's shape
 * `{id, object: 'response', deleted: true}`. An id that is unknown, deleted, lapsed or another
 * account's answers the same 404, so an answer tells nothing about other accounts' ids.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../../platform/log.ts';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { timeOrderedId } from '../events/time-ordered-id.ts';
import { authenticateRequest } from './authenticate.ts';
import { responsesEndpoint } from './endpoints.ts';
import { GatewayError } from './errors.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { openAIErrorBody } from './render-error.ts';
import { notFound } from './response-state.ts';

export const STORED_RESPONSES_PREFIX = '/v1/responses/';

/** The response as `POST /v1/responses` answered it. */
export function storedResponseObject(document: StoredResponseDocument): Record<string, unknown> {
  const outputText = document.outputItems
    .flatMap((item) => (item['type'] === 'message' && Array.isArray(item['content']) ? item['content'] : []))
    .map((part: { type?: unknown; text?: unknown }) =>
      part.type === 'output_text' && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
  return { ...document.settings, output: document.outputItems, output_text: outputText };
}

function answer(response: ServerResponse, requestId: string, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  response.end(JSON.stringify(body));
}

async function serve(request: IncomingMessage, responseId: string, dependencies: RelayDependencies) {
  const authenticated = authenticateRequest(request, responsesEndpoint, dependencies);
  const { token } = authenticated instanceof Promise ? await authenticated : authenticated;
  const state = dependencies.responses;
  const document = state && responseId !== '' ? await state.find(responseId, token.userId) : null;
  if (!state || !document) throw notFound(responseId, 'response_id');
  if (request.method === 'GET') return storedResponseObject(document);
  await state.record(newEvent('response.deleted', { responseId, userId: token.userId }));
  return { id: responseId, object: 'response', deleted: true };
}

export async function answerStoredResponse(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  dependencies: RelayDependencies,
): Promise<void> {
  const requestId = timeOrderedId();
  if (request.method !== 'GET' && request.method !== 'DELETE') {
    const error = new GatewayError('invalid_request', `Use GET or DELETE for ${STORED_RESPONSES_PREFIX}{id}.`, {
      status: 405,
    });
    response.setHeader('allow', 'GET, DELETE');
    answer(response, requestId, 405, openAIErrorBody(error));
    return;
  }
  let responseId: string;
  try {
    responseId = decodeURIComponent(path.slice(STORED_RESPONSES_PREFIX.length));
  } catch {
    responseId = '';
  }
  try {
    answer(response, requestId, 200, await serve(request, responseId, dependencies));
  } catch (error) {
    if (!(error instanceof GatewayError)) log.error('stored response failed', { requestId, error: String(error) });
    const failure =
      error instanceof GatewayError ? error : new GatewayError('internal', 'The response store did not answer.');
    answer(response, requestId, failure.status, openAIErrorBody(failure));
  }
}
