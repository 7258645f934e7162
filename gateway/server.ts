/**
 * @module gateway/server
 * The HTTP front: relay endpoints are dispatched on bare node:http (they pay for no middleware), and
 * everything else goes to the Express app (console API, console files, probes).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import { chatCompletionsEndpoint, messagesEndpoint } from './relay/endpoints.ts';
import { GatewayError } from './relay/errors.ts';
import { handleModels } from './relay/models-handler.ts';
import { handleRelay, type RelayDependencies } from './relay/relay-handler.ts';

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

export function createGatewayServer(relay: RelayDependencies, consoleApp: Express): Server {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = pathOf(request.url);
    if (path === '/v1/chat/completions' || path === '/v1/messages') {
      const endpoint = path === '/v1/messages' ? messagesEndpoint : chatCompletionsEndpoint;
      if (request.method !== 'POST') {
        const error = new GatewayError('invalid_request', `Use POST for ${path}.`, { status: 405 });
        response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
        response.end(JSON.stringify(endpoint.errorBody(error, '')));
        return;
      }
      void handleRelay(endpoint, request, response, relay);
      return;
    }
    if (path === '/v1/models' && request.method === 'GET') {
      void handleModels(request, response, relay);
      return;
    }
    consoleApp(request, response);
  });
  // Streams can be long; Node's default request timeout (300 s) would cut slow generations.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return server;
}
