/**
 * @module gateway/relay/pipe-stream
 * Streams an upstream SSE body to the client frame by frame: parsed with eventsource-parser, handed
 * to the provider's stream relay, written as soon as it is ready, with backpressure (a slow client
 * pauses the upstream read instead of growing a buffer). An event over the frame limit, or a body that
 * ends without a single event (not SSE at all), ends the relay with an error.
 */
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { StreamRelay } from '../providers/provider.ts';
import type { RequestRecord } from './request-record.ts';
import type { StreamedReply } from './streamed-reply.ts';
import { frameTooLarge, noEvents } from './upstream-reply-errors.ts';

export async function pipeStream(
  upstream: StreamedReply,
  response: ServerResponse,
  relay: StreamRelay,
  record: RequestRecord,
  onFirstWrite: () => void = () => {},
): Promise<void> {
  let written = false;
  let sawEvent = false;
  let oversized = false;
  const parser = createParser({
    // The parser's own bound on a partial line plus an unfinished event: its buffers are dropped.
    maxBufferSize: upstream.frameLimitBytes,
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') oversized = true;
    },
    onEvent(event) {
      sawEvent = true;
      const frame = relay.onEvent({ event: event.event, data: event.data });
      if (!frame) return;
      if (relay.sawContent) record.markFirstToken();
      if (!written) {
        written = true;
        onFirstWrite();
      }
      response.write(frame);
    },
  });
  const decoder = new TextDecoder();
  let waitingForDrain = false;
  const resume = () => {
    waitingForDrain = false;
    upstream.resume();
  };
  await upstream.consume((chunk) => {
    // A client that went away ends the upstream call through the client abort; read no further.
    if (response.destroyed) return false;
    parser.feed(decoder.decode(chunk, { stream: true }));
    // Thrown here, undici ends the call and the consume promise rejects with it.
    if (oversized) throw frameTooLarge(upstream.frameLimitBytes);
    if (!response.writableNeedDrain) return true;
    if (!waitingForDrain) {
      waitingForDrain = true;
      response.once('drain', resume);
    }
    return false;
  });
  parser.feed(decoder.decode());
  if (!sawEvent) throw noEvents();
}
