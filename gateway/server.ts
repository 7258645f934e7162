/**
 * @module gateway/server
 * The HTTP front: relay endpoints are dispatched on bare node:http (they pay for no middleware), and
 * everything else goes to the Express app (console API, console files, probes). `/metrics` is served
 * here too, and the server counts requests in flight so a shutdown can wait for them. Deadlines on the
 * request phase and caps on open sockets bound what slow or idle clients can hold.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { ConnectionSettings } from './config/connection-settings.ts';
import { limitConnections } from './connection-limits.ts';
import { timeOrderedId } from './events/time-ordered-id.ts';
import type { GatewayMetrics } from './metrics.ts';
import { countTokensEndpoint } from './relay/count-tokens-endpoint.ts';
import { embeddingsEndpoint } from './relay/embeddings-endpoint.ts';
import { chatCompletionsEndpoint, type EndpointSpec, messagesEndpoint, responsesEndpoint } from './relay/endpoints.ts';
import { GatewayError } from './relay/errors.ts';
import { handleGeminiModels } from './relay/gemini-models.ts';
import { geminiEndpointOf, geminiModelsRoute } from './relay/gemini-routes.ts';
import { handleModels } from './relay/models-handler.ts';
import { handleRelay, type RelayDependencies } from './relay/relay-handler.ts';
import { responsesCompactEndpoint, responsesInputTokensEndpoint } from './relay/responses-compaction-endpoints.ts';
import { answerStoredResponse, STORED_RESPONSES_PREFIX } from './relay/stored-responses.ts';
import { answerUnknownRoute, isApiPath } from './relay/unknown-route.ts';

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function relayEndpointOf(path: string): EndpointSpec | null {
  if (path === '/v1/chat/completions') return chatCompletionsEndpoint;
  if (path === '/v1/messages') return messagesEndpoint;
  if (path === '/v1/responses') return responsesEndpoint;
  if (path === '/v1/embeddings') return embeddingsEndpoint;
  if (path === '/v1/messages/count_tokens') return countTokensEndpoint;
  // Before `/v1/responses/{id}` (stored-responses.ts): these two are operations, not response ids.
  if (path === '/v1/responses/compact') return responsesCompactEndpoint;
  if (path === '/v1/responses/input_tokens') return responsesInputTokensEndpoint;
  return geminiEndpointOf(path);
}

export interface ServerLifecycle {
  /** requests being answered right now (streams included) */
  inFlight: number;
  /** set at shutdown: /readyz answers 503 so load balancers stop sending */
  draining: boolean;
  /** relay handlers still running (they publish the request's events when they end) */
  relaying: number;
}

export function newLifecycle(): ServerLifecycle {
  return { inFlight: 0, draining: false, relaying: 0 };
}

export interface GatewayServerOptions {
  connections: ConnectionSettings;
  metrics?: GatewayMetrics;
  /** when set, /metrics needs `Authorization: Bearer <token>` */
  metricsToken?: string | undefined;
  lifecycle?: ServerLifecycle;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(.+)$/i.exec(header?.trim() ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function serveMetrics(
  request: IncomingMessage,
  response: ServerResponse,
  metrics: GatewayMetrics,
  token: string | undefined,
): Promise<void> {
  if (token && !bearerMatches(request.headers.authorization, token)) {
    response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
    response.end('Send the METRICS_TOKEN as Authorization: Bearer <token>.\n');
    return;
  }
  const text = await metrics.registry.metrics();
  response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
  response.end(text);
}

/**
 * Node enforces both request deadlines itself, from a request's first byte until its last: a response
 * being sent is never cut (a streamed reply can run for minutes). It checks them on a timer, so a
 * deadline holds to within one check: a few checks per deadline, at most one a second. The keep-alive
 * timeout starts when a response has ended.
 */
function requestPhaseOptions(connections: ConnectionSettings): ServerOptions {
  const shortest = Math.min(
    ...[connections.requestTimeoutMs, connections.headersTimeoutMs].filter((timeout) => timeout > 0),
  );
  return {
    requestTimeout: connections.requestTimeoutMs,
    headersTimeout: connections.headersTimeoutMs,
    keepAliveTimeout: connections.keepAliveTimeoutMs,
    ...(Number.isFinite(shortest) && {
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(shortest / 4))),
    }),
  };
}

export function createGatewayServer(
  relay: RelayDependencies,
  consoleApp: Express,
  options: GatewayServerOptions,
): Server {
  const lifecycle = options.lifecycle ?? newLifecycle();
  const closed = () => lifecycle.inFlight--;
  const relayEnded = () => lifecycle.relaying--;
  // A handler that throws is a bug, and stays an unhandled rejection; it still stops being counted.
  const relayFailed = (error: unknown) => {
    lifecycle.relaying--;
    throw error;
  };
  const requestPhase = requestPhaseOptions(options.connections);
  const server = createServer(requestPhase, (request: IncomingMessage, response: ServerResponse) => {
    lifecycle.inFlight++;
    const path = pathOf(request.url);
    const endpoint = relayEndpointOf(path);
    if (endpoint && request.method === 'POST') {
      if (lifecycle.draining) response.setHeader('connection', 'close');
      // The relay's own `close` listener counts the response out (one listener, not two), and a
      // counter rather than a set of promises tracks the handlers: both are per request on the hot path.
      lifecycle.relaying++;
      void handleRelay(endpoint, request, response, relay, closed).then(relayEnded, relayFailed);
      return;
    }
    response.once('close', closed);
    if (path === '/metrics' && request.method === 'GET' && options.metrics) {
      void serveMetrics(request, response, options.metrics, options.metricsToken);
      return;
    }
    if (path === '/readyz' && lifecycle.draining) {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'shutting_down' }));
      return;
    }
    if (lifecycle.draining) response.setHeader('connection', 'close');
    if (endpoint) {
      const error = new GatewayError('invalid_request', `Use POST for ${path}.`, { status: 405 });
      const requestId = timeOrderedId();
      response.writeHead(405, { allow: 'POST', 'content-type': 'application/json', 'x-request-id': requestId });
      response.end(JSON.stringify(endpoint.errorBody(error, requestId)));
      return;
    }
    const geminiModels = request.method === 'GET' ? geminiModelsRoute(path, request) : null;
    if (geminiModels) {
      void handleGeminiModels(request, response, relay, geminiModels.modelId);
      return;
    }
    if (path === '/v1/models' && request.method === 'GET') {
      void handleModels(request, response, relay);
      return;
    }
    if (path.startsWith(STORED_RESPONSES_PREFIX)) {
      void answerStoredResponse(request, response, path, relay);
      return;
    }
    if (isApiPath(path)) {
      answerUnknownRoute(request, response, path);
      return;
    }
    consoleApp(request, response);
  });
  limitConnections(server, options.connections);
  return server;
}
