/**
 * @module gateway/relay/gemini-count-tokens
 * Gemini's `:countTokens` as a relay endpoint, like `/v1/messages/count_tokens` (count-tokens-endpoint.ts):
 * a gemini channel counts upstream and its answer goes back as sent; any other channel gets the
 * gateway's tokenizer count as `{"totalTokens": n}`, marked `x-gateway-token-count: estimate`.
 * Unbilled: the key checks and RPM apply, no quota, TPM or usage; recorded as `gemini.countTokens`.
 */
import { countTokensRequestSchema } from '../../contracts/gemini/client-request.ts';
import { buildGeminiMethodRequest } from '../providers/gemini/methods.ts';
import { isTokenCount } from '../providers/usage-check.ts';
import type { Route } from './channel-router.ts';
import { ESTIMATE_HEADER } from './count-tokens-endpoint.ts';
import { millisecondsSince } from './elapsed.ts';
import type { EndpointSpec } from './endpoints.ts';
import { UpstreamCallError } from './errors.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { geminiShared, generateContentEndpoint } from './gemini-endpoints.ts';
import { refuseUnsuccessful } from './relay-buffered.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';

function answer(call: RelayCall, body: Buffer, headers: Record<string, string> = {}): void {
  call.response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': body.length,
    'x-request-id': call.record.requestId,
    ...headers,
  });
  call.response.end(body);
}

/** The conversation a count is of: the whole request when one is given (system prompt and tools too). */
function countedBody(body: Record<string, unknown>): Record<string, unknown> {
  const whole = body['generateContentRequest'];
  return typeof whole === 'object' && whole !== null ? (whole as Record<string, unknown>) : body;
}

function countedHere(call: RelayCall, body: Record<string, unknown>, route: Route, attempt: AttemptTiming): void {
  const started = performance.now();
  const totalTokens = estimatePromptTokens(countedBody(body));
  attempt.status = 200;
  attempt.latencyMs = millisecondsSince(started);
  // No call was made: a half-open breaker's probe taken for this channel goes back untried.
  call.dependencies.breakers?.release(route.channel.channelId);
  answer(call, Buffer.from(JSON.stringify({ totalTokens })), { [ESTIMATE_HEADER]: 'estimate' });
}

async function countedUpstream(
  call: RelayCall,
  body: Record<string, unknown>,
  route: Route,
  attempt: AttemptTiming,
): Promise<void> {
  const { dependencies, request, signal } = call;
  const built = buildGeminiMethodRequest('countTokens', { route, body, stream: false, clientHeaders: request.headers });
  const started = performance.now();
  const reply = await dependencies.upstream.sendBuffered(built.upstream, signal, route.channel);
  attempt.status = reply.statusCode;
  attempt.latencyMs = millisecondsSince(started);
  if (reply.statusCode < 400) dependencies.breakers?.onSuccess(route.channel.channelId);
  refuseUnsuccessful(reply, route.channel);
  let count: unknown;
  try {
    count = (JSON.parse(reply.body.toString('utf8')) as { totalTokens?: unknown } | null)?.totalTokens;
  } catch {
    count = undefined;
  }
  // Google leaves out a zero count: an empty conversation's answer is `{}`.
  if (count !== undefined && !isTokenCount(count)) {
    throw new UpstreamCallError(
      'upstream',
      'The upstream provider answered the token count without a usable `totalTokens`.',
      502,
    );
  }
  answer(call, reply.body);
}

export const geminiCountTokensEndpoint: EndpointSpec = {
  ...geminiShared,
  name: 'gemini.countTokens',
  schema: countTokensRequestSchema,
  certainlyValid: () => false,
  // The kinds that serve generateContent are the ones a count routes to (relayOnce counts itself).
  providers: generateContentEndpoint.providers,
  unbilled: true,
  relayOnce(call, resolved, route, attempt) {
    const { record } = call;
    record.channelId = route.channel.channelId;
    record.channelName = route.channel.name;
    record.channelType = route.channel.type;
    record.channelBaseUrl = route.channel.baseUrl;
    record.upstreamModel = route.upstreamModel;
    if (route.channel.type !== 'gemini') return Promise.resolve(countedHere(call, resolved.body, route, attempt));
    return countedUpstream(call, resolved.body, route, attempt);
  },
};
