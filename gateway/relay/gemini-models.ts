/**
 * @module gateway/relay/gemini-models
 * `GET /v1beta/models` and `GET /v1beta/models/{model}` (and under `/v1` for a Gemini client, one that
 * sends its key as `x-goog-api-key` or `?key=`): the models the key may use, in Google's `Model` shape,
 * `name` as `models/{id}`. Every model serves generateContent and countTokens; the embedding methods
 * are listed for the models a channel with an embeddings API serves. `pageSize` (default 50, at most
 * 1000) and `pageToken` page through the list as Google's SDK pages.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GeminiModel, ListModelsResponse } from '../../contracts/gemini/client-response.ts';
import { timeOrderedId } from '../events/time-ordered-id.ts';
import { authenticateRequest } from './authenticate.ts';
import type { ChannelRouter } from './channel-router.ts';
import { GatewayError } from './errors.ts';
import { generateContentEndpoint } from './gemini-endpoints.ts';
import type { RelayDependencies } from './relay-handler.ts';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

function modelOf(id: string, router: ChannelRouter): GeminiModel {
  const embeds = router.routes(id, ['gemini', 'openai', 'azure']).length > 0;
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: id,
    supportedGenerationMethods: [
      'generateContent',
      'streamGenerateContent',
      'countTokens',
      ...(embeds ? ['embedContent', 'batchEmbedContents'] : []),
    ],
  };
}

function page(models: string[], url: string, router: ChannelRouter): ListModelsResponse {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const asked = Number(query.get('pageSize'));
  const size = Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_PAGE) : DEFAULT_PAGE;
  const token = Number(query.get('pageToken') ?? 0);
  const start = Number.isInteger(token) && token > 0 ? token : 0;
  const end = start + size;
  return {
    models: models.slice(start, end).map((id) => modelOf(id, router)),
    ...(end < models.length && { nextPageToken: String(end) }),
  };
}

/** `modelId`: the one model asked for (`models/{id}`), or null for the list. */
export async function handleGeminiModels(
  request: IncomingMessage,
  response: ServerResponse,
  dependencies: RelayDependencies,
  modelId: string | null,
): Promise<void> {
  const requestId = timeOrderedId();
  response.setHeader('x-request-id', requestId);
  try {
    const { token } = await authenticateRequest(request, generateContentEndpoint, dependencies);
    const { router } = dependencies;
    const models = router.models().filter((model) => !token.models || token.models.includes(model));
    let body: unknown;
    if (modelId === null) body = page(models, request.url ?? '', router);
    else if (models.includes(modelId)) body = modelOf(modelId, router);
    else throw new GatewayError('not_found', `models/${modelId} is not found, or this key may not use it.`);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  } catch (error) {
    const failure = error instanceof GatewayError ? error : new GatewayError('internal', 'Listing models failed.');
    response.writeHead(failure.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(generateContentEndpoint.errorBody(failure, requestId)));
  }
}
