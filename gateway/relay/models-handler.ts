/**
 * @module gateway/relay/models-handler
 * `GET /v1/models`: the models the key may use, in OpenAI's list shape, or Anthropic's when the
 * request looks like an Anthropic client (`x-api-key` and `anthropic-version`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timeOrderedId } from '../events/time-ordered-id.ts';
import { authenticateRequest } from './authenticate.ts';
import { chatCompletionsEndpoint, type EndpointSpec, messagesEndpoint } from './endpoints.ts';
import { GatewayError } from './errors.ts';
import type { RelayDependencies } from './relay-handler.ts';

const CREATED = Math.floor(Date.UTC(2025, 0, 1) / 1000);

export async function handleModels(
  request: IncomingMessage,
  response: ServerResponse,
  dependencies: RelayDependencies,
): Promise<void> {
  // Anthropic's SDKs always send anthropic-version (and, since 1.x, a bearer token rather than x-api-key).
  const anthropicStyle = Boolean(request.headers['anthropic-version']);
  const endpoint: EndpointSpec = anthropicStyle ? messagesEndpoint : chatCompletionsEndpoint;
  const requestId = timeOrderedId();
  response.setHeader('x-request-id', requestId);
  try {
    const { token } = await authenticateRequest(request, endpoint, dependencies);
    const models = dependencies.router.models().filter((model) => !token.models || token.models.includes(model));
    const body = anthropicStyle
      ? {
          data: models.map((id) => ({
            type: 'model',
            id,
            display_name: id,
            created_at: new Date(CREATED * 1000).toISOString(),
          })),
          has_more: false,
          first_id: models[0] ?? null,
          last_id: models[models.length - 1] ?? null,
        }
      : { object: 'list', data: models.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'gateway' })) };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  } catch (error) {
    const failure = error instanceof GatewayError ? error : new GatewayError('internal', 'Listing models failed.');
    response.writeHead(failure.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(endpoint.errorBody(failure, requestId)));
  }
}
