/**
 * @module gateway/relay/stored-responses
 * `GET` and `DELETE /v1/responses/{id}`: the gateway keeps no responses yet (converted replies say
 * `store: false`), so every id answers 404 in OpenAI's error shape, the same for every caller, so an
 * answer tells nothing about ids or keys. Without this the path would fall through to the console.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from './errors.ts';
import { openAIErrorBody } from './render-error.ts';

export const STORED_RESPONSES_PREFIX = '/v1/responses/';

export function answerStoredResponse(response: ServerResponse, requestId: string): void {
  const error = new GatewayError(
    'not_found',
    'No response with this id is stored: this gateway does not keep responses (they are answered with store: false). Send the earlier turns in input instead of previous_response_id.',
    { param: 'response_id' },
  );
  response.writeHead(404, { 'content-type': 'application/json', 'x-request-id': requestId });
  response.end(JSON.stringify(openAIErrorBody(error)));
}
