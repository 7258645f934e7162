/**
 * @module gateway/relay/relay-streamed
 * One attempt's reply for a streamed request: the upstream's SSE frames relayed to the client as
 * they arrive (converted when the channel speaks the other format), and the stream's outcome (model,
 * usage, an in-stream error) kept in the request's record.
 */
import { finishFrames, usageSourceOf } from '../providers/provider-extensions.ts';
import { estimateUsage } from './estimate-usage.ts';
import { pipeStream } from './pipe-stream.ts';
import { MAX_ERROR_BODY, noteAnswer, type RelayCall, type UpstreamExchange } from './relay-call.ts';
import { upstreamError } from './upstream-error.ts';

const HEADERS_ALONE_AFTER_MS = 50;

export async function relayStreamed(call: RelayCall, exchange: UpstreamExchange): Promise<void> {
  const { record, response, signal, dependencies } = call;
  const { provider, input, built, route } = exchange;
  const started = performance.now();
  const upstream = await dependencies.upstream.sendStreamed(built.upstream, signal, route.channel);
  noteAnswer(call, exchange, upstream.statusCode, started);
  if (upstream.statusCode >= 400) {
    const chunks: Buffer[] = [];
    await upstream.consume((chunk) => chunks.push(chunk) > 0);
    const text = Buffer.concat(chunks).toString('utf8', 0, MAX_ERROR_BODY);
    throw upstreamError(upstream.statusCode, text, upstream.header('retry-after'));
  }
  const relay = provider.createStreamRelay({ hideUsageChunk: built.hideUsageChunk, input });
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    // No `connection` here: Node sends keep-alive itself, and `close` while the node drains (server.ts).
    'x-accel-buffering': 'no',
    'x-request-id': record.requestId,
  });
  // The headers leave with the first frame (one write, one wake-up of the client: ~0.2 ms of time to
  // first token here), or on their own if the upstream is slow to send one, so the client sees the
  // stream open.
  const flushHeaders = setTimeout(() => response.flushHeaders(), HEADERS_ALONE_AFTER_MS);
  try {
    await pipeStream(upstream, response, relay, record, () => clearTimeout(flushHeaders));
    // A converted stream that ended without its end event still closes in the client's format.
    const tail = finishFrames(relay);
    if (tail) response.write(tail);
  } finally {
    clearTimeout(flushHeaders);
    const outcome = relay.outcome();
    record.modelServed = outcome.model;
    record.usage = outcome.usage ?? estimateUsage(input.body, outcome.completionText);
    record.usageSource = usageSourceOf(outcome);
    if (outcome.error) record.fail(200, outcome.error.type, outcome.error.message);
  }
  response.end();
}
