/**
 * @module gateway/relay/relay-handler
 * One relayed request, end to end: key, body, contract, rate limits, route, upstream call (retrying
 * with backoff on the next channel or key on a retryable error before the first byte, skipping
 * channels whose breaker is open), the reply relayed as it arrives, and the traffic events published
 * in the background. Runs on bare node:http: no middleware on this path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeIssues, firstIssueField } from '../../contracts/validation-message.ts';
import { log } from '../../platform/log.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel, QuotaLedger, RateLimiter } from '../../stores/ports.ts';
import { captureDaysOf, PayloadCapture } from '../capture/payload-capture.ts';
import type { EventPublisher } from '../events/publisher.ts';
import { timeOrderedId } from '../events/time-ordered-id.ts';
import type { Logger } from '../log.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { ResolvedModel } from '../providers/conversion/thinking.ts';
import { warningsOf } from '../providers/provider-extensions.ts';
import { rateLimitError, setRateLimitHeaders } from './admission.ts';
import { attemptPlan, backoff, failureKind, nextKeyIndex } from './attempt-plan.ts';
import { attributionOf } from './attribution.ts';
import { authenticateRequest, authorizeModel, KeyRefusedError } from './authenticate.ts';
import type { BacklogAdmission } from './backlog-admission.ts';
import { estimatedMaximumCost, hasBudget, reserveBudgets } from './budget.ts';
import type { ChannelRouter, Route } from './channel-router.ts';
import type { CircuitBreakers } from './circuit-breaker.ts';
import { ClientAbort } from './client-abort.ts';
import { millisecondsSince } from './elapsed.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError, UpstreamCallError } from './errors.ts';
import { internalError, isUpstreamFailure } from './failure-origin.ts';
import { reserveQuota, type TokenEstimate, tokenEstimate } from './quota.ts';
import { checkContentType, parseJsonRequest, readBody } from './read-body.ts';
import { relayBuffered } from './relay-buffered.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';
import { relayStreamed } from './relay-streamed.ts';
import { errorTypeOf } from './render-error.ts';
import { RequestHolds } from './request-holds.ts';
import { RequestRecord } from './request-record.ts';
import type { ResponseState } from './response-state.ts';
import type { StreamPacer } from './stream-pacer.ts';
import { transportError, type UpstreamClient } from './upstream-client.ts';

export interface RelayDependencies {
  lookups: LookupReadModel;
  router: ChannelRouter;
  upstream: UpstreamClient;
  publisher: EventPublisher;
  hashingKey: Buffer;
  bodyLimitBytes: number;
  /** upstream attempts per request, across channels and keys (default 3) */
  maxAttempts?: number;
  /** paces new requests by the event log's backlog: waits above a soft mark, refuses above the hard one */
  admission?: BacklogAdmission;
  /** base of the backoff between attempts: ~1×, 2×, 4×… with jitter (default 100 ms) */
  retryBackoffMs?: number;
  rateLimiter?: RateLimiter;
  quotas?: QuotaLedger;
  breakers?: CircuitBreakers;
  metrics?: GatewayMetrics;
  logger?: Logger;
  /** X-Forwarded-For hops to trust for the client address (0: the socket's) */
  trustProxyHops?: number;
  /** what each model costs; without it every request is unpriced */
  prices?: PriceBook;
  /** stored Responses (`store`, `previous_response_id`, `GET`/`DELETE /v1/responses/{id}`); without it none are kept */
  responses?: ResponseState;
  /** paces each key's streams to STREAM_BYTES_PER_SECOND_PER_KEY on this node; without it none is paced */
  streamPacer?: StreamPacer;
  /** each captured side's cap in bytes (payload capture, docs/payloads.md) */
  captureMaxBytes?: number;
  /** seals the summaries of the gateway's own compactions (security/compaction-seal.ts); without it converted channels cannot compact */
  compactionKey?: Buffer;
}

/**
 * The caller's `X-Request-Id` when a header and a log line can carry it, else null. It is kept beside
 * the request's own id, never as it: a caller may send the same id twice (a constant, a retry), and
 * records keyed by it would merge, losing requests and the tokens they used.
 */
export function clientRequestIdOf(request: IncomingMessage): string | null {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : null;
}

export async function handleRelay(
  endpoint: EndpointSpec,
  request: IncomingMessage,
  response: ServerResponse,
  dependencies: RelayDependencies,
  /** called when the response closes (the server's count of requests in flight) */
  onClosed?: () => void,
): Promise<void> {
  const record = new RequestRecord(timeOrderedId(), endpoint.name);
  record.clientRequestId = clientRequestIdOf(request);
  const abort = new ClientAbort();
  // One listener for both: a second `close` listener per response measurably costs on this path.
  response.on('close', () => {
    onClosed?.();
    if (!response.writableFinished) {
      record.clientAborted = true;
      abort.abort();
    }
  });
  let limited: { key: string; estimate: number } | null = null;
  const holds = new RequestHolds(dependencies.quotas, record, dependencies.prices);
  let capture: PayloadCapture | null = null;
  try {
    // Synchronous for a key in memory: no await, so no microtask hop before the body is read.
    const authenticated = authenticateRequest(request, endpoint, dependencies);
    const { token } = authenticated instanceof Promise ? await authenticated : authenticated;
    record.userId = token.userId;
    record.tokenId = token.tokenId;
    const captureDays = captureDaysOf(token, dependencies.lookups);
    if (captureDays > 0) {
      capture = new PayloadCapture(captureDays, dependencies.captureMaxBytes);
      capture.tee(response);
    }
    // After the key (a refusal is then recorded as the key's), before the body is read: a request
    // held here costs its socket and nothing more.
    const held = dependencies.admission?.admit();
    if (held) await held;
    checkContentType(request);
    const raw = await readBody(request, dependencies.bodyLimitBytes);
    capture?.noteRequest(raw);
    const { body, text } = parseJsonRequest(raw);
    const target = endpoint.target?.(request.url ?? '');
    if (target) {
      record.modelRequested = target.model;
      record.stream = target.stream;
    } else {
      if (typeof body['model'] === 'string') record.modelRequested = body['model'];
      record.stream = body['stream'] === true;
    }
    // What the gateway reads of the body (endpoints.ts): the common bodies pass a hand check, the zod
    // envelope decides the rest and words any error. The channel's format judges everything else.
    if (!endpoint.certainlyValid(body)) {
      const parsed = endpoint.schema.safeParse(body);
      if (!parsed.success) {
        throw new GatewayError('invalid_request', describeIssues(parsed.error.issues), {
          param: firstIssueField(parsed.error.issues),
        });
      }
    }
    const attribution = attributionOf(endpoint.name, request.headers, body, token.metadata);
    if (attribution) record.attribution = attribution;
    const serves = (model: string) => dependencies.router.routes(model, acceptedTypes(endpoint)).length > 0;
    const resolved = endpoint.resolveModel?.(body, serves) ?? { model: record.modelRequested!, body, warnings: [] };
    authorizeModel(token, resolved.model);
    // The prompt the gateway adds (a continued conversation's earlier turns) is held like the client's own.
    const added = endpoint.prepare ? await endpoint.prepare(resolved.body, raw.length, token, dependencies) : 0;
    const estimate = tokenEstimate(body, raw.length, added, endpoint.completionAllowance);
    const rpm = token.rpmLimit ?? null;
    const tpm = endpoint.unbilled ? null : (token.tpmLimit ?? null);
    if ((rpm !== null || tpm !== null) && dependencies.rateLimiter) {
      // A cheap prompt estimate (4 bytes a token), corrected by the real count when the request ends.
      const prompt = tpm === null ? 0 : estimate.promptTokens;
      const decision = await dependencies.rateLimiter.acquire(token.tokenId, { rpm, tpm }, prompt, Date.now());
      setRateLimitHeaders(response, decision);
      if (!decision.allowed) throw rateLimitError(decision);
      if (tpm !== null) limited = { key: token.tokenId, estimate: prompt };
    }
    if (token.quota !== null && dependencies.quotas && !endpoint.unbilled) {
      holds.quota = await reserveQuota(dependencies.quotas, dependencies.lookups, token, estimate, record.requestId);
    }
    // Keys (and accounts) without a budget pay this one check: no price lookup, no ledger round trip.
    if (dependencies.quotas && dependencies.prices && hasBudget(token, dependencies.lookups)) {
      holds.budgets = await holdBudgets(dependencies, endpoint, token, resolved.model, estimate, record.requestId);
    }
    const call: RelayCall = {
      endpoint,
      request,
      response,
      record,
      dependencies,
      signal: abort,
      holds,
      client: { body, text },
    };
    await relayToUpstream(call, resolved);
  } catch (error) {
    if (error instanceof KeyRefusedError) {
      record.userId = error.token.userId;
      record.tokenId = error.token.tokenId;
    }
    // Settled before the error goes out, as a success's is before its last byte (request-holds.ts).
    if (holds.any && !record.clientAborted) await holds.settle();
    handleFailure(endpoint, response, record, error);
  } finally {
    const latencyMs = record.elapsedMs();
    dependencies.publisher.publish(...record.toEvents(latencyMs, dependencies.prices));
    if (capture) publishCapture(capture, endpoint, request, record, dependencies);
    const used = record.usage ? record.usage.promptTokens + record.usage.completionTokens : 0;
    if (limited) void dependencies.rateLimiter!.adjustTokens(limited.key, used - limited.estimate, Date.now());
    // Settled already unless the client left first.
    if (holds.any) void holds.settle();
    dependencies.metrics?.observe(record, latencyMs / 1000);
    dependencies.logger?.request(request.method ?? 'POST', record, latencyMs);
  }
}

function publishCapture(
  capture: PayloadCapture,
  endpoint: EndpointSpec,
  request: IncomingMessage,
  record: RequestRecord,
  dependencies: RelayDependencies,
): void {
  const { requestId, userId, tokenId, stream, status } = record;
  const gatewayKey = endpoint.keyOf(request.headers, request.url);
  const secrets = gatewayKey ? [gatewayKey, ...dependencies.router.secrets()] : dependencies.router.secrets();
  const facts = { requestId, userId: userId!, tokenId: tokenId!, endpoint: endpoint.name, stream, status };
  capture.publishLater(facts, secrets, dependencies.publisher, (error) =>
    log.error('payload capture failed', { requestId, error: String(error) }),
  );
}

/** Holds the request's maximum cost of the key's and the account's budgets; none for an unpriced model. */
async function holdBudgets(
  dependencies: RelayDependencies,
  endpoint: EndpointSpec,
  token: TokenDocument,
  model: string,
  estimate: TokenEstimate,
  holdId: string,
): Promise<string[] | null> {
  const now = Date.now();
  const routes = dependencies.router.routes(model, acceptedTypes(endpoint));
  const { promptTokens, completionTokens } = estimate;
  const cost = estimatedMaximumCost(dependencies.prices!, model, routes, promptTokens, completionTokens, now);
  if (cost === null) return null;
  return reserveBudgets(dependencies.quotas!, dependencies.lookups, token, cost, holdId, now);
}

function acceptedTypes(endpoint: EndpointSpec) {
  return Object.keys(endpoint.providers) as Array<keyof typeof endpoint.providers>;
}

async function relayToUpstream(call: RelayCall, resolved: ResolvedModel): Promise<void> {
  const { endpoint, response, record, dependencies, signal } = call;
  const { model } = resolved;
  const routes = dependencies.router.routes(model, acceptedTypes(endpoint));
  if (routes.length === 0) {
    if (endpoint.unservedModel) throw endpoint.unservedModel(model, dependencies.router);
    throw new GatewayError(
      'not_found',
      `The model "${model}" is not served by any channel. List the available models with GET /v1/models.`,
      {
        param: 'model',
        code: 'model_not_found',
      },
    );
  }
  const breakers = dependencies.breakers;
  const plan = attemptPlan(routes, dependencies.maxAttempts ?? 3, breakers);
  let lastError: UpstreamCallError | null = null;
  let tried = 0;
  for (const { route, forced } of plan) {
    const channelId = route.channel.channelId;
    // Another request may have taken the half-open probe since the plan was made.
    if (!forced && breakers && !breakers.tryAcquire(channelId)) continue;
    if (tried > 0) await backoff(tried, dependencies.retryBackoffMs ?? 100, signal);
    tried++;
    const keyIndex = nextKeyIndex(route.channel);
    const attempt = { channelId, keyIndex, status: 0, error: null as string | null, latencyMs: 0 };
    record.attempts.push(attempt);
    const started = performance.now();
    try {
      const keyed =
        keyIndex === 0 ? route : { ...route, channel: { ...route.channel, apiKey: route.channel.apiKeys![keyIndex]! } };
      return await (endpoint.relayOnce ?? relayOnce)(call, resolved, keyed, attempt);
    } catch (error) {
      attempt.latencyMs = millisecondsSince(started);
      // The request itself is at fault (a conversion refused it): another channel would not help.
      if (error instanceof GatewayError && !(error instanceof UpstreamCallError)) {
        attempt.error = 'refused';
        breakers?.release(channelId);
        throw error;
      }
      // The gateway's own exception: the channel is not at fault (handleFailure answers 500).
      if (!isUpstreamFailure(error)) {
        attempt.error = 'internal';
        breakers?.release(channelId);
        throw error;
      }
      const failure = transportError(error, response.headersSent);
      // Once the client has seen a byte, or it has gone, there is nothing left to fail over.
      if (response.headersSent || signal.aborted) {
        attempt.error = signal.aborted ? 'client_closed' : 'interrupted';
        breakers?.release(channelId);
        throw failure;
      }
      attempt.status = failure.upstreamStatus;
      attempt.error = failureKind(failure);
      dependencies.metrics?.upstreamError(route.channel.name, attempt.error);
      if (!failure.isRetryable) {
        breakers?.release(channelId);
        throw failure;
      }
      breakers?.onFailure(channelId);
      lastError = failure;
    }
  }
  throw (
    lastError ??
    new GatewayError(
      'overloaded',
      `Every channel serving "${model}" is failing and being probed; try again in a few seconds.`,
      { code: 'channels_unavailable', headers: { 'retry-after': '1' } },
    )
  );
}

async function relayOnce(
  call: RelayCall,
  { body, warnings: resolveWarnings }: ResolvedModel,
  route: Route,
  attempt: AttemptTiming,
): Promise<void> {
  const { endpoint, record, request, response } = call;
  const provider = endpoint.providers[route.channel.type]!;
  record.noteRoute(route);
  const input = {
    route,
    body,
    stream: record.stream,
    clientHeaders: request.headers,
    clientQuery: queryOf(request.url),
    ...(call.client ? { client: call.client } : {}),
  };
  const waited = endpoint.beforeAttempt?.(input);
  if (waited) await waited;
  const built = provider.buildRequest(input);
  const warnings = [...resolveWarnings, ...warningsOf(built)];
  // Client-chosen names can appear in a warning; a header carries printable ASCII only.
  if (warnings.length) response.setHeader('x-gateway-warnings', warnings.join('; ').replace(/[^\x20-\x7e]/g, '?'));
  const exchange = { provider, input, built, route, attempt };
  return record.stream ? relayStreamed(call, exchange) : relayBuffered(call, exchange);
}

/** The query string of a request URL with its `?`, or ''. */
export function queryOf(url: string | undefined): string {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 ? '' : url!.slice(at);
}

function handleFailure(endpoint: EndpointSpec, response: ServerResponse, record: RequestRecord, error: unknown): void {
  if (record.clientAborted) {
    // The server's request deadline (REQUEST_TIMEOUT_MS) answers 408 itself and destroys the socket with
    // this error; the request then ends as if the client had left, which it did not.
    if ((response.req.socket?.errored as NodeJS.ErrnoException | null)?.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      record.clientAborted = false;
      record.fail(408, 'request_timeout', 'The request did not arrive in full within the server deadline.');
      return;
    }
    record.fail(499, 'client_closed_request', 'The client closed the connection before the reply was complete.');
    return;
  }
  const failure = error instanceof GatewayError ? error : internalError();
  if (!(error instanceof GatewayError) && !(error instanceof Error && 'code' in error)) {
    log.error('relay failed', { requestId: record.requestId, error: String(error) });
  }
  if (response.headersSent) {
    // After the 200 the only channel left is the stream itself (docs/wire-formats.md §1.6, §2.4).
    record.fail(200, errorTypeOf(failure), failure.message);
    if (!response.writableEnded) response.end(endpoint.streamErrorFrame(failure, record.requestId));
    return;
  }
  record.fail(failure.status, errorTypeOf(failure), failure.message);
  // An oversized body may still be arriving: close rather than read the rest of it.
  if (failure.kind === 'request_too_large') response.setHeader('connection', 'close');
  const payload = JSON.stringify(endpoint.errorBody(failure, record.requestId));
  response.writeHead(failure.status, {
    'content-type': 'application/json',
    'x-request-id': record.requestId,
    ...failure.headers,
  });
  response.end(payload);
}
