/**
 * @module gateway/relay/token-count-answers
 * What the three counting endpoints (Anthropic's `count_tokens`, Gemini's `:countTokens`, Responses'
 * `input_tokens`) share: a count made here by the gateway's tokenizer, answered with
 * `x-gateway-token-count: estimate`, or a count asked of the channel, answered as the upstream sent
 * it once its figure is checked. Neither generates tokens, so neither bills (see each endpoint).
 */
import type { UpstreamRequest } from '../providers/upstream-route.ts';
import { isTokenCount } from '../providers/usage-check.ts';
import type { Route } from './channel-router.ts';
import { millisecondsSince } from './elapsed.ts';
import { UpstreamCallError } from './errors.ts';
import { refuseUnsuccessful } from './relay-buffered.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';

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

/** Answers what `count` returns, counted here: the attempt is timed, and no upstream was called. */
export function answerEstimate(call: RelayCall, route: Route, attempt: AttemptTiming, count: () => unknown): void {
  const started = performance.now();
  const counted = count();
  attempt.status = 200;
  attempt.latencyMs = millisecondsSince(started);
  // No call was made: a half-open breaker's probe taken for this channel goes back untried.
  call.dependencies.breakers?.release(route.channel.channelId);
  answer(call, Buffer.from(JSON.stringify(counted)), { [ESTIMATE_HEADER]: 'estimate' });
}

/**
 * Sends `upstream` and answers its reply as sent, once the reply's `field` is a usable count (with
 * `absentIsZero`, a reply without it is one too: Google leaves out a zero count).
 */
export async function answerUpstreamCount(
  call: RelayCall,
  route: Route,
  attempt: AttemptTiming,
  upstream: UpstreamRequest,
  field: string,
  absentIsZero = false,
): Promise<void> {
  const { dependencies, signal } = call;
  const started = performance.now();
  const reply = await dependencies.upstream.sendBuffered(upstream, signal, route.channel);
  attempt.status = reply.statusCode;
  attempt.latencyMs = millisecondsSince(started);
  if (reply.statusCode < 400) dependencies.breakers?.onSuccess(route.channel.channelId);
  refuseUnsuccessful(reply, route.channel);
  let count: unknown;
  try {
    count = (JSON.parse(reply.body.toString('utf8')) as Record<string, unknown> | null)?.[field];
  } catch {
    count = undefined;
  }
  if (!(absentIsZero && count === undefined) && !isTokenCount(count)) {
    throw new UpstreamCallError(
      'upstream',
      `The upstream provider answered the token count without a usable \`${field}\`.`,
      502,
    );
  }
  answer(call, reply.body);
}
