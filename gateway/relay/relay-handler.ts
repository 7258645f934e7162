/**
 * @module gateway/relay/relay-handler
 * One relayed request, end to end: key, body, contract, route, upstream call (failing over to the next
 * channel on a retryable error before the first byte), the reply relayed as it arrives, and the
 * traffic events published in the background. Runs on bare node:http: no middleware on this path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import type { LookupReadModel } from '../../stores/ports.ts';
import type { EventPublisher } from '../events/publisher.ts';
import type { ResolvedModel } from '../providers/conversion/thinking.ts';
import { finishFrames, usageSourceOf, warningsOf } from '../providers/provider-extensions.ts';
import { authenticateKey, authorizeModel } from './authenticate.ts';
import type { ChannelRouter, Route } from './channel-router.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError, UpstreamCallError } from './errors.ts';
import { estimateUsage } from './estimate-usage.ts';
import { pipeStream } from './pipe-stream.ts';
import { checkContentType, parseJsonObject, readBody } from './read-body.ts';
import { errorTypeOf } from './render-error.ts';
import { RequestRecord } from './request-record.ts';
import { transportError, type UpstreamClient } from './upstream-client.ts';
import { upstreamError } from './upstream-error.ts';
import { describeIssues, firstIssueField } from './validation-message.ts';

export interface RelayDependencies {
  lookups: LookupReadModel;
  router: ChannelRouter;
  upstream: UpstreamClient;
  publisher: EventPublisher;
  hashingKey: Buffer;
  bodyLimitBytes: number;
  maxAttempts?: number;
}

const MAX_ERROR_BODY = 64 * 1024;

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : uuidv7();
}

export async function handleRelay(
  endpoint: EndpointSpec,
  request: IncomingMessage,
  response: ServerResponse,
  dependencies: RelayDependencies,
): Promise<void> {
  const record = new RequestRecord(requestIdOf(request), endpoint.name);
  response.setHeader('x-request-id', record.requestId);
  const abort = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) {
      record.clientAborted = true;
      abort.abort();
    }
  });
  try {
    const { token } = await authenticateKey(
      endpoint.keyOf(request.headers),
      dependencies.lookups,
      dependencies.hashingKey,
      endpoint.keyHint,
      Date.now(),
    );
    record.userId = token.userId;
    record.tokenId = token.tokenId;
    checkContentType(request);
    const body = parseJsonObject(await readBody(request, dependencies.bodyLimitBytes));
    const parsed = endpoint.schema.safeParse(body);
    if (typeof body['model'] === 'string') record.modelRequested = body['model'];
    record.stream = body['stream'] === true;
    if (!parsed.success) {
      throw new GatewayError('invalid_request', describeIssues(parsed.error.issues), {
        param: firstIssueField(parsed.error.issues),
      });
    }
    const serves = (model: string) => dependencies.router.routes(model, acceptedTypes(endpoint)).length > 0;
    const resolved = endpoint.resolveModel?.(body, serves) ?? { model: record.modelRequested!, body, warnings: [] };
    authorizeModel(token, resolved.model);
    await relayToUpstream(endpoint, request, response, resolved, record, dependencies, abort.signal);
  } catch (error) {
    handleFailure(endpoint, response, record, error);
  } finally {
    dependencies.publisher.publish(...record.toEvents());
  }
}

function acceptedTypes(endpoint: EndpointSpec) {
  return Object.keys(endpoint.providers) as Array<keyof typeof endpoint.providers>;
}

async function relayToUpstream(
  endpoint: EndpointSpec,
  request: IncomingMessage,
  response: ServerResponse,
  { model, body, warnings }: ResolvedModel,
  record: RequestRecord,
  dependencies: RelayDependencies,
  signal: AbortSignal,
): Promise<void> {
  const routes = dependencies.router.routes(model, acceptedTypes(endpoint));
  if (routes.length === 0) {
    throw new GatewayError(
      'not_found',
      `The model "${model}" is not served by any channel. List the available models with GET /v1/models.`,
      {
        param: 'model',
        code: 'model_not_found',
      },
    );
  }
  let lastError: UpstreamCallError | null = null;
  for (const route of routes.slice(0, dependencies.maxAttempts ?? 3)) {
    try {
      return await relayOnce(endpoint, request, response, body, warnings, route, record, dependencies, signal);
    } catch (error) {
      // The request itself is at fault (a conversion refused it): another channel would not help.
      if (error instanceof GatewayError && !(error instanceof UpstreamCallError)) throw error;
      const failure = transportError(error, response.headersSent);
      // Once the client has seen a byte, or it has gone, there is nothing left to fail over.
      if (response.headersSent || signal.aborted || !failure.isRetryable) throw failure;
      lastError = failure;
    }
  }
  throw lastError!;
}

async function relayOnce(
  endpoint: EndpointSpec,
  request: IncomingMessage,
  response: ServerResponse,
  body: Record<string, unknown>,
  resolveWarnings: string[],
  route: Route,
  record: RequestRecord,
  dependencies: RelayDependencies,
  signal: AbortSignal,
): Promise<void> {
  const provider = endpoint.providers[route.channel.type]!;
  record.channelId = route.channel.channelId;
  const input = { route, body, stream: record.stream, clientHeaders: request.headers };
  const built = provider.buildRequest(input);
  const warnings = [...resolveWarnings, ...warningsOf(built)];
  // Client-chosen names can appear in a warning; a header carries printable ASCII only.
  if (warnings.length) response.setHeader('x-gateway-warnings', warnings.join('; ').replace(/[^\x20-\x7e]/g, '?'));
  const upstream = await dependencies.upstream.send(built.upstream, signal);
  if (upstream.statusCode >= 400) {
    const text = (await upstream.body.text()).slice(0, MAX_ERROR_BODY);
    const retryAfter = upstream.headers['retry-after'];
    throw upstreamError(upstream.statusCode, text, typeof retryAfter === 'string' ? retryAfter : undefined);
  }
  if (!record.stream) {
    const bytes = Buffer.from(await upstream.body.arrayBuffer());
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new UpstreamCallError('upstream', 'The upstream provider returned a response that is not valid JSON.', 502);
    }
    const reading = provider.readResponse(parsed, input);
    record.modelServed = reading.model;
    record.usage = reading.usage ?? estimateUsage(body, reading.completionText);
    record.usageSource = reading.usage ? 'upstream' : 'estimated';
    record.markFirstToken();
    const out = reading.clientBody === undefined ? bytes : Buffer.from(JSON.stringify(reading.clientBody));
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
    response.end(out);
    return;
  }
  const relay = provider.createStreamRelay({ hideUsageChunk: built.hideUsageChunk, input });
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
  try {
    await pipeStream(upstream.body, response, relay, record);
    // A converted stream that ended without its end event still closes in the client's format.
    const tail = finishFrames(relay);
    if (tail) response.write(tail);
  } finally {
    const outcome = relay.outcome();
    record.modelServed = outcome.model;
    record.usage = outcome.usage ?? estimateUsage(body, outcome.completionText);
    record.usageSource = usageSourceOf(outcome);
    if (outcome.error) record.fail(200, outcome.error.type, outcome.error.message);
  }
  response.end();
}

function handleFailure(endpoint: EndpointSpec, response: ServerResponse, record: RequestRecord, error: unknown): void {
  if (record.clientAborted) {
    record.fail(499, 'client_closed_request', 'The client closed the connection before the reply was complete.');
    return;
  }
  const failure = error instanceof GatewayError ? error : transportError(error);
  if (!(error instanceof GatewayError) && !(error instanceof Error && 'code' in error)) {
    console.error(
      JSON.stringify({ level: 'error', msg: 'relay failed', requestId: record.requestId, error: String(error) }),
    );
  }
  if (response.headersSent) {
    // After the 200 the only channel left is the stream itself (wire-formats §1.6, §2.4).
    record.fail(200, errorTypeOf(failure), failure.message);
    if (!response.writableEnded) response.end(endpoint.streamErrorFrame(failure, record.requestId));
    return;
  }
  record.fail(failure.status, errorTypeOf(failure), failure.message);
  // An oversized body may still be arriving: close rather than read the rest of it.
  if (failure.kind === 'request_too_large') response.setHeader('connection', 'close');
  const payload = JSON.stringify(endpoint.errorBody(failure, record.requestId));
  response.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
  response.end(payload);
}
