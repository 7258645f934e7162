/**
 * @module gateway/relay/pipe-stream
 * Streams an upstream SSE body to the client frame by frame: parsed with eventsource-parser, handed
 * to the provider's stream relay, written as soon as it is ready, with backpressure (a slow client
 * pauses the upstream read instead of growing a buffer).
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { StreamRelay } from '../providers/provider.ts';
import type { RequestRecord } from './request-record.ts';

export async function pipeStream(
  upstreamBody: Readable,
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
  for await (const chunk of upstreamBody) {
    parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    // A client that disconnects while we wait never drains: wait for either.
    if (response.writableNeedDrain) await Promise.race([once(response, 'drain'), once(response, 'close')]);
    if (response.destroyed) return;
  }
  parser.feed(decoder.decode());
}
