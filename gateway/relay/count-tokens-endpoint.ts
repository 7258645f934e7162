/**
 * @module gateway/relay/count-tokens-endpoint
 * `POST /v1/messages/count_tokens` as relay data (see endpoints.ts): the Messages endpoint's key
 * header, error shape, model resolution and channel kinds, and its own answer for each route. An
 * Anthropic channel receives the request upstream and its count goes back as sent; another channel
 * gets the gateway's tokenizer count (estimate-usage.ts, bounded), marked by `x-gateway-token-count:
 * estimate`. Counting generates nothing and is not billed: no usage event, no TPM or quota hold, but
 * the key checks and RPM apply, and the call is recorded as a `request.completed` of its own endpoint
 * (so refusals, failures and who counts how often stay visible in the usage log).
 */
import { countTokensEnvelopeSchema } from '../../contracts/anthropic/count-tokens-request.ts';
import { buildAnthropicCountTokensRequest } from '../providers/anthropic/count-tokens.ts';
import { isTokenCount } from '../providers/usage-check.ts';
import type { Route } from './channel-router.ts';
import { millisecondsSince } from './elapsed.ts';
import { type EndpointSpec, messagesEndpoint } from './endpoints.ts';
import { UpstreamCallError } from './errors.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { refuseUnsuccessful } from './relay-buffered.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';
import { queryOf } from './relay-handler.ts';

export const ESTIMATE_HEADER = 'x-gateway-token-count';

function answer(call: RelayCall, body: Buffer, headers: Record<string, string> = {}): void {
  call.response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': body.length,
    'x-request-id': call.record.requestId,
    ...headers,
  });
  call.response.end(body);
}

function countedHere(call: RelayCall, body: Record<string, unknown>, route: Route, attempt: AttemptTiming): void {
  const started = performance.now();
  const tokens = estimatePromptTokens(body);
  attempt.status = 200;
  attempt.latencyMs = millisecondsSince(started);
  // No call was made: a half-open breaker's probe taken for this channel goes back untried.
  call.dependencies.breakers?.release(route.channel.channelId);
  answer(call, Buffer.from(JSON.stringify({ input_tokens: tokens })), { [ESTIMATE_HEADER]: 'estimate' });
}

async function countedUpstream(
  call: RelayCall,
  body: Record<string, unknown>,
  route: Route,
  attempt: AttemptTiming,
): Promise<void> {
  const { dependencies, request, signal } = call;
  const upstream = buildAnthropicCountTokensRequest({
    route,
    body,
    stream: false,
    clientHeaders: request.headers,
    clientQuery: queryOf(request.url),
  });
  const started = performance.now();
  const reply = await dependencies.upstream.sendBuffered(upstream, signal, route.channel);
  attempt.status = reply.statusCode;
  attempt.latencyMs = millisecondsSince(started);
  if (reply.statusCode < 400) dependencies.breakers?.onSuccess(route.channel.channelId);
  refuseUnsuccessful(reply, route.channel);
  let count: unknown;
  try {
    count = (JSON.parse(reply.body.toString('utf8')) as { input_tokens?: unknown } | null)?.input_tokens;
  } catch {
    count = undefined;
  }
  if (!isTokenCount(count)) {
    throw new UpstreamCallError(
      'upstream',
      'The upstream provider answered the token count without a usable `input_tokens`.',
      502,
    );
  }
  answer(call, reply.body);
}

export const countTokensEndpoint: EndpointSpec = {
  ...messagesEndpoint,
  name: 'messages.count_tokens',
  schema: countTokensEnvelopeSchema,
  certainlyValid: () => false,
  unbilled: true,
  relayOnce(call, resolved, route, attempt) {
    const { record } = call;
    record.channelId = route.channel.channelId;
    record.channelName = route.channel.name;
    record.channelType = route.channel.type;
    record.channelBaseUrl = route.channel.baseUrl;
    record.upstreamModel = route.upstreamModel;
    if (route.channel.type !== 'anthropic') return Promise.resolve(countedHere(call, resolved.body, route, attempt));
    return countedUpstream(call, resolved.body, route, attempt);
  },
};
