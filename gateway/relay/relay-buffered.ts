/**
 * @module gateway/relay/relay-buffered
 * One attempt's reply for a non-streamed request: read whole, checked, converted to the client's
 * format when the channel speaks the other one, and sent with its length. The upstream client caps
 * the reply's size (UPSTREAM_REPLY_LIMIT_BYTES).
 */
import type { BufferedReply } from './buffered-reply.ts';
import type { Route } from './channel-router.ts';
import { UpstreamCallError } from './errors.ts';
import { estimateUsage } from './estimate-usage.ts';
import { MAX_ERROR_BODY, noteAnswer, type RelayCall, type UpstreamExchange } from './relay-call.ts';
import { upstreamError } from './upstream-error.ts';
import { compressed, redirected } from './upstream-reply-errors.ts';

/** An error answer becomes the gateway's error (its message scrubbed), a redirect a 502: neither is passed on. */
export function refuseUnsuccessful(reply: BufferedReply, channel: Route['channel']): void {
  if (reply.statusCode >= 400) {
    throw upstreamError(reply.statusCode, reply.body.toString('utf8', 0, MAX_ERROR_BODY), reply, channel);
  }
  if (reply.statusCode >= 300) throw redirected(reply.statusCode);
}

export async function relayBuffered(call: RelayCall, exchange: UpstreamExchange): Promise<void> {
  const { record, response, signal, dependencies } = call;
  const { provider, input, built, route } = exchange;
  const started = performance.now();
  const reply = await dependencies.upstream.sendBuffered(built.upstream, signal, route.channel);
  noteAnswer(call, exchange, reply.statusCode, started);
  refuseUnsuccessful(reply, route.channel);
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body.toString('utf8'));
  } catch {
    // Looked at only here, off the common path: the likely reason the body did not parse.
    const encoding = reply.header('content-encoding');
    if (encoding && encoding.trim().toLowerCase() !== 'identity') throw compressed(encoding, reply.statusCode);
    throw new UpstreamCallError('upstream', 'The upstream provider returned a response that is not valid JSON.', 502);
  }
  const reading = provider.readResponse(parsed, input);
  record.modelServed = reading.model;
  record.usage = reading.usage ?? (call.endpoint.estimateUsage ?? estimateUsage)(input.body, reading.completionText);
  record.usageSource = reading.usage ? 'upstream' : 'estimated';
  record.usageRefused = reading.usageRefused ?? null;
  record.markFirstToken();
  const kept = call.endpoint.keeper
    ? await call.endpoint.keeper.buffered(call, exchange, reading.clientBody ?? parsed)
    : undefined;
  // The upstream's bytes as they came, unless the reply was converted or keeping gave it another id.
  const clientBody = kept ?? reading.clientBody;
  const out = clientBody === undefined ? reply.body : Buffer.from(JSON.stringify(clientBody));
  if (call.holds?.any) await call.holds.settle();
  // The request id is written here and in the other writeHead calls, not set up front: any header
  // set before writeHead sends every header through Node's slower path, validated and stored twice.
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': out.length,
    'x-request-id': record.requestId,
  });
  response.end(out);
}
