/**
 * @module gateway/relay/relay-streamed
 * One attempt's reply for a streamed request: the upstream's SSE frames relayed to the client as
 * they arrive (converted when the channel speaks the other format), and the stream's outcome (model,
 * usage, an in-stream error) kept in the request's record. A reply that is no event stream (a
 * redirect, a compressed or differently typed body) is refused on its headers, before the client's
 * 200, and its call ended unread.
 */
import { type StreamFraming, upstreamKinds } from '../providers/kinds.ts';
import type { StreamRelay } from '../providers/provider.ts';
import { failFrames, finishFrames, usageSourceOf } from '../providers/provider-extensions.ts';
import type { SecretHolder } from '../security/scrub-secrets.ts';
import { GatewayError, UpstreamCallError } from './errors.ts';
import { estimateStreamUsage } from './estimate-usage.ts';
import { internalError, isUpstreamFailure } from './failure-origin.ts';
import { pipeStream } from './pipe-stream.ts';
import { MAX_ERROR_BODY, noteAnswer, type RelayCall, type UpstreamExchange } from './relay-call.ts';
import { errorTypeOf } from './render-error.ts';
import type { StreamedReply } from './streamed-reply.ts';
import { transportError } from './upstream-client.ts';
import { upstreamError } from './upstream-error.ts';
import { compressed, notEventStream, redirected } from './upstream-reply-errors.ts';

const HEADERS_ALONE_AFTER_MS = 50;
const AWS_EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';
/** Errors of a reply that carried nothing a provider bills for, unless content came before them. */
const UNBILLED = new Set(['upstream_bad_reply', 'upstream_frame_too_large']);

export async function relayStreamed(call: RelayCall, exchange: UpstreamExchange): Promise<void> {
  const { record, response, signal, dependencies } = call;
  const { provider, input, built, route } = exchange;
  const started = performance.now();
  const upstream = await dependencies.upstream.sendStreamed(built.upstream, signal, route.channel);
  noteAnswer(call, exchange, upstream.statusCode, started);
  if (upstream.statusCode >= 400) throw await errorOf(upstream, route.channel);
  const { capabilities } = upstreamKinds[route.channel.type];
  const framing = capabilities.streamFraming ?? 'sse';
  const refusal = refusalOf(upstream, framing, capabilities.eventStreamTypeOnly === true);
  if (refusal) {
    upstream.abort(refusal);
    throw refusal;
  }
  const { keeper } = call.endpoint;
  const provided = provider.createStreamRelay({ hideUsageChunk: built.hideUsageChunk, input });
  const relay = keeper ? keeper.hold(provided, call, exchange) : provided;
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
  let billable = true;
  let failure: unknown = null;
  const paced = dependencies.streamPacer?.open(record.tokenId ?? '');
  try {
    const onFirstWrite = () => clearTimeout(flushHeaders);
    await pipeStream(upstream, response, relay, record, { onFirstWrite, framing, pace: paced?.pace });
    // A converted stream that ended without its end event still closes in the client's format.
    const tail = finishFrames(relay);
    if (tail) response.write(tail);
    if (keeper) {
      const held = await keeper.release(call, exchange, relay);
      if (held) response.write(held);
    }
  } catch (error) {
    // A body that was no event stream, or one oversized frame, with no content before it: nothing
    // to bill, not even an estimate.
    if (error instanceof UpstreamCallError && UNBILLED.has(error.code ?? '') && !relay.sawContent) billable = false;
    failure = error;
  } finally {
    paced?.close();
    clearTimeout(flushHeaders);
    const outcome = relay.outcome();
    record.modelServed = outcome.model;
    record.usageSource = usageSourceOf(outcome);
    record.usageRefused = outcome.usageRefused ?? null;
    record.usage =
      billable || record.usageSource === 'upstream'
        ? (outcome.usage ?? estimateStreamUsage(input.body, outcome))
        : null;
    if (outcome.error) record.fail(200, outcome.error.type, outcome.error.message);
  }
  if (failure !== null) {
    await endFailed(call, relay, failure);
    throw failure;
  }
  if (call.holds?.any) await call.holds.settle();
  response.end();
}

/**
 * Ends a started stream with its failure in frames the relay words, where the client's format needs
 * the stream's state for them (a Responses stream's `response.failed`); otherwise the endpoint's
 * error frame ends it (relay-handler.ts). Settled first, as a stream that ends well is.
 */
async function endFailed(call: RelayCall, relay: StreamRelay, failure: unknown): Promise<void> {
  const { response, signal } = call;
  if (signal.aborted || response.destroyed || response.writableEnded) return;
  const error =
    failure instanceof GatewayError
      ? failure
      : isUpstreamFailure(failure)
        ? transportError(failure, true)
        : internalError();
  const frames = failFrames(relay, { code: errorTypeOf(error), message: error.message });
  if (!frames) return;
  if (call.holds?.any) await call.holds.settle();
  response.end(frames);
}

/** The upstream's error answer, read up to MAX_ERROR_BODY; the rest is not read. */
async function errorOf(upstream: StreamedReply, channel: SecretHolder): Promise<Error> {
  const chunks: Buffer[] = [];
  let size = 0;
  const enough = new Error('error body read');
  try {
    await upstream.consume((chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ERROR_BODY) throw enough;
      return true;
    });
  } catch (error) {
    if (error !== enough) throw error;
  }
  const text = Buffer.concat(chunks).toString('utf8', 0, MAX_ERROR_BODY);
  return upstreamError(upstream.statusCode, text, upstream, channel);
}

/**
 * Why a 2xx/3xx answer is not a stream the relay can read, from its headers: a redirect (not
 * followed), a compressed body, or a content type that is not an event stream. A missing type is
 * read as SSE, and text/plain too (some servers label SSE so), unless the kind's streams are always
 * typed `text/event-stream` (Azure, Gemini): then nothing else is. A kind framed as AWS event streams must say so
 * (`application/vnd.amazon.eventstream`): its decoder reads nothing else.
 */
function refusalOf(upstream: StreamedReply, framing: StreamFraming, eventStreamTypeOnly: boolean): Error | null {
  if (upstream.statusCode >= 300) return redirected(upstream.statusCode);
  const encoding = upstream.contentEncoding;
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return compressed(encoding, upstream.statusCode);
  }
  const type = upstream.contentType;
  if (framing === 'aws-event-stream') {
    return type?.toLowerCase().startsWith(AWS_EVENT_STREAM_TYPE)
      ? null
      : notEventStream(type ?? 'no content type', upstream.statusCode);
  }
  if (type === undefined) return eventStreamTypeOnly ? notEventStream('no content type', upstream.statusCode) : null;
  const lower = type.toLowerCase();
  if (lower.includes('event-stream')) return null;
  if (!eventStreamTypeOnly && lower.startsWith('text/plain')) return null;
  return notEventStream(type, upstream.statusCode);
}
