/**
 * @module gateway/relay/pipe-stream
 * Streams an upstream SSE body to the client frame by frame: parsed with eventsource-parser, handed
 * to the provider's stream relay, written as soon as it is ready, with backpressure (a slow client
 * pauses the upstream read instead of growing a buffer).
 */
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { StreamRelay } from '../providers/provider.ts';
import type { RequestRecord } from './request-record.ts';
import type { StreamedReply } from './streamed-reply.ts';

export async function pipeStream(
  upstream: StreamedReply,
  response: ServerResponse,
  relay: StreamRelay,
  record: RequestRecord,
  onFirstWrite: () => void = () => {},
): Promise<void> {
  let written = false;
  const parser = createParser({
    onEvent(event) {
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
    if (!response.writableNeedDrain) return true;
    if (!waitingForDrain) {
      waitingForDrain = true;
      response.once('drain', resume);
    }
    return false;
  });
  parser.feed(decoder.decode());
}
