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
import { type Pace, unpaced } from './stream-pacer.ts';
import type { StreamedReply } from './streamed-reply.ts';
import { frameTooLarge, noEvents, streamTooLarge } from './upstream-reply-errors.ts';

export interface PipeOptions {
  /** called before the first frame is written */
  onFirstWrite?: () => void;
  framing?: StreamFraming;
  /** how long to wait after a chunk before reading the next (stream-pacer.ts) */
  pace?: Pace;
}

export async function pipeStream(
  upstream: StreamedReply,
  response: ServerResponse,
  relay: StreamRelay,
  record: RequestRecord,
  { onFirstWrite = () => {}, framing = 'sse', pace = unpaced }: PipeOptions = {},
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
    await consumeWithBackpressure(upstream, response, pace, (chunk) => {
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
  await consumeWithBackpressure(upstream, response, pace, (chunk) => {
    parser.feed(decoder.decode(chunk, { stream: true }));
    // Thrown here, undici ends the call and the consume promise rejects with it.
    if (oversized) throw frameTooLarge(upstream.frameLimitBytes);
  });
  parser.feed(decoder.decode());
  if (!sawEvent) throw noEvents();
}

/** What one stream may relay in one turn of the event loop before it waits for the next turn. */
const TURN_BYTES = 64 * 1024;

/**
 * Hands each chunk to `read` until the body ends, pausing the upstream read: until the client has
 * drained what was written, for as long as the key's pace asks, and until the event loop's next turn
 * once the stream has relayed TURN_BYTES in this one. A socket with data waiting is otherwise read
 * again and again in one turn (libuv reads up to 32 times), so a fast upstream's conversion would hold
 * the loop for megabytes while every other request waits; this way each stream takes its share of the
 * loop and another client's request is served between its chunks. A model's stream, a few small
 * chunks a turn, never waits.
 */
function consumeWithBackpressure(
  upstream: StreamedReply,
  response: ServerResponse,
  pace: Pace,
  read: (chunk: Buffer) => void,
): Promise<void> {
  let waiting = false;
  let total = 0;
  let thisTurn = 0;
  const resume = () => {
    waiting = false;
    upstream.resume();
  };
  const nextTurn = () => {
    thisTurn = 0;
  };
  return upstream.consume((chunk) => {
    // A client that went away ends the upstream call through the client abort; read no further.
    if (response.destroyed) return false;
    total += chunk.length;
    if (total > upstream.streamLimitBytes) throw streamTooLarge(upstream.streamLimitBytes);
    // What `read` throws ends the call: undici ends it and the consume promise rejects with it.
    read(chunk);
    const delayMs = pace(chunk.length);
    if (waiting) return false;
    if (thisTurn === 0) setImmediate(nextTurn);
    thisTurn += chunk.length;
    if (delayMs === 0 && !response.writableNeedDrain && thisTurn < TURN_BYTES) return true;
    waiting = true;
    const next = delayMs > 0 ? () => setTimeout(resume, delayMs) : () => setImmediate(resume);
    if (response.writableNeedDrain) response.once('drain', next);
    else next();
    return false;
  });
}
