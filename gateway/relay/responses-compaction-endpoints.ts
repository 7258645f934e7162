/**
 * @module gateway/relay/responses-compaction-endpoints
 * `POST /v1/responses/compact` and `POST /v1/responses/input_tokens` as relay data (see endpoints.ts),
 * with the `/v1/responses` key header, error shapes and stored conversations (`previous_response_id`,
 * the gateway's compaction items: response-continuation.ts), each recorded under its own endpoint.
 *
 * - compact: relayed as is to a channel that is OpenAI's own Responses API; on every other channel
 *   the gateway's summarising call answers it (providers/responses/compaction-format.ts). It
 *   generates tokens: its usage is recorded and billed, and the holds apply, as on `/v1/responses`.
 * - input_tokens: counted upstream by OpenAI's own Responses API, else by the gateway's tokenizer
 *   over the conversation the channel would receive, marked `x-gateway-token-count: estimate`.
 *   Counting generates nothing: no usage, no TPM or quota hold, but the key checks and RPM apply, as
 *   on `/v1/messages/count_tokens`.
 */
import {
  responsesCompactEnvelopeSchema,
  responsesInputTokensEnvelopeSchema,
} from '../../contracts/openai/responses-compaction.ts';
import { providersFor } from '../providers/index.ts';
import { buildResponsesSubRequest } from '../providers/openai/responses-compact-native.ts';
import type { RelayInput } from '../providers/provider.ts';
import { preparedInput } from '../providers/responses/compaction.ts';
import { compactsNatively } from '../providers/responses/responses-providers.ts';
import { isTokenCount } from '../providers/usage-check.ts';
import type { Route } from './channel-router.ts';
import { ESTIMATE_HEADER } from './count-tokens-endpoint.ts';
import { millisecondsSince } from './elapsed.ts';
import { type EndpointSpec, responsesEndpoint } from './endpoints.ts';
import { UpstreamCallError } from './errors.ts';
import { estimatePromptTokens } from './estimate-usage.ts';
import { refuseUnsuccessful } from './relay-buffered.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';
import { queryOf } from './relay-handler.ts';
import { continueWholeConversation } from './response-continuation.ts';

const { keyOf, keyHint, errorBody, streamErrorFrame } = responsesEndpoint;

export const responsesCompactEndpoint: EndpointSpec = {
  name: 'responses.compact',
  schema: responsesCompactEnvelopeSchema,
  certainlyValid: () => false,
  keyOf,
  keyHint,
  providers: providersFor('responses.compact'),
  prepare: continueWholeConversation,
  errorBody,
  streamErrorFrame,
};

function answer(call: RelayCall, body: Buffer, headers: Record<string, string> = {}): void {
  call.response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': body.length,
    'x-request-id': call.record.requestId,
    ...headers,
  });
  call.response.end(body);
}

function countedHere(call: RelayCall, client: RelayInput, route: Route, attempt: AttemptTiming): void {
  const started = performance.now();
  const tokens = estimatePromptTokens(preparedInput(client, false).body);
  attempt.status = 200;
  attempt.latencyMs = millisecondsSince(started);
  // No call was made: a half-open breaker's probe taken for this channel goes back untried.
  call.dependencies.breakers?.release(route.channel.channelId);
  const counted = { object: 'response.input_tokens', input_tokens: tokens };
  answer(call, Buffer.from(JSON.stringify(counted)), { [ESTIMATE_HEADER]: 'estimate' });
}

async function countedUpstream(call: RelayCall, client: RelayInput, route: Route, attempt: AttemptTiming) {
  const { dependencies, signal } = call;
  const upstream = buildResponsesSubRequest(preparedInput(client, true), 'input_tokens');
  const started = performance.now();
  const reply = await dependencies.upstream.sendBuffered(upstream.upstream, signal, route.channel);
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

export const responsesInputTokensEndpoint: EndpointSpec = {
  name: 'responses.input_tokens',
  schema: responsesInputTokensEnvelopeSchema,
  certainlyValid: () => false,
  keyOf,
  keyHint,
  providers: providersFor('responses'),
  prepare: continueWholeConversation,
  unbilled: true,
  errorBody,
  streamErrorFrame,
  relayOnce(call, resolved, route, attempt) {
    const { record, request } = call;
    record.channelId = route.channel.channelId;
    record.channelName = route.channel.name;
    record.channelType = route.channel.type;
    record.channelBaseUrl = route.channel.baseUrl;
    record.upstreamModel = route.upstreamModel;
    const client: RelayInput = {
      route,
      body: resolved.body,
      stream: false,
      clientHeaders: request.headers,
      clientQuery: queryOf(request.url),
    };
    if (!compactsNatively(route.channel.type, client)) {
      return Promise.resolve(countedHere(call, client, route, attempt));
    }
    return countedUpstream(call, client, route, attempt);
  },
};
