/**
 * @module gateway/relay/pipe-stream
 * Streams an upstream SSE body to the client frame by frame: parsed with eventsource-parser (or, for a
 * kind whose streams are framed as AWS event streams, decoded by aws-event-stream.ts), handed to the
 * provider's stream relay, written as soon as it is ready, with backpressure (a slow client pauses the
 * upstream read instead of growing a buffer). An event over the frame limit, a body over the stream
 * limit (what one reply may cost the process, however slowly it comes), or a body that ends without a
 * single event (not SSE at all), ends the relay with an error.
 */
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { StreamFraming } from '../providers/kinds.ts';
import type { SseEvent, StreamRelay } from '../providers/provider.ts';
import { AwsEventStreamDecoder } from './aws-event-stream.ts';
import type { RequestRecord } from './request-record.ts';
import type { StreamedReply } from './streamed-reply.ts';
import { frameTooLarge, noEvents, streamTooLarge } from './upstream-reply-errors.ts';

export async function pipeStream(
  upstream: StreamedReply,
  response: ServerResponse,
  relay: StreamRelay,
  record: RequestRecord,
  onFirstWrite: () => void = () => {},
  framing: StreamFraming = 'sse',
): Promise<void> {
  let written = false;
  let sawEvent = false;
  let oversized = false;
  const onEvent = (event: SseEvent) => {
    sawEvent = true;
    const frame = relay.onEvent(event);
    if (!frame) return;
    if (relay.sawContent) record.markFirstToken();
    if (!written) {
      written = true;
      onFirstWrite();
    }
    response.write(frame);
  };
  if (framing === 'aws-event-stream') {
    const frames = new AwsEventStreamDecoder(upstream.frameLimitBytes);
    await consumeWithBackpressure(upstream, response, (chunk) => {
      for (const event of frames.feed(chunk)) onEvent(event);
    });
    frames.end();
    if (!sawEvent) throw noEvents();
    return;
  }
  const parser = createParser({
    // The parser's own bound on a partial line plus an unfinished event: its buffers are dropped.
    maxBufferSize: upstream.frameLimitBytes,
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') oversized = true;
    },
    onEvent(event) {
      onEvent({ event: event.event, data: event.data });
    },
  });
  const decoder = new TextDecoder();
  await consumeWithBackpressure(upstream, response, (chunk) => {
    parser.feed(decoder.decode(chunk, { stream: true }));
    // Thrown here, undici ends the call and the consume promise rejects with it.
    if (oversized) throw frameTooLarge(upstream.frameLimitBytes);
  });
  parser.feed(decoder.decode());
  if (!sawEvent) throw noEvents();
}

/** Hands each chunk to `read` until the body ends, pausing the upstream while the client is full. */
function consumeWithBackpressure(
  upstream: StreamedReply,
  response: ServerResponse,
  read: (chunk: Buffer) => void,
): Promise<void> {
  let waitingForDrain = false;
  let total = 0;
  const resume = () => {
    waitingForDrain = false;
    upstream.resume();
  };
  return upstream.consume((chunk) => {
    // A client that went away ends the upstream call through the client abort; read no further.
    if (response.destroyed) return false;
    total += chunk.length;
    if (total > upstream.streamLimitBytes) throw streamTooLarge(upstream.streamLimitBytes);
    // What `read` throws ends the call: undici ends it and the consume promise rejects with it.
    read(chunk);
    if (!response.writableNeedDrain) return true;
    if (!waitingForDrain) {
      waitingForDrain = true;
      response.once('drain', resume);
    }
    return false;
  });
}
