/**
 * @module gateway/relay/aws-event-stream
 * AWS's binary event-stream framing (`application/vnd.amazon.eventstream`, Bedrock's ConverseStream)
 * read into the events a kind's stream reader takes. Each message is a 4-byte total length, a 4-byte
 * header length, a CRC of those, the headers, the payload and a CRC of it all. The framing here only
 * cuts the byte stream into whole messages, refusing a message over the frame limit before any memory
 * is set aside for it (the length is the upstream's to choose); AWS's codec (@smithy/eventstream-codec)
 * checks both CRCs and parses the headers.
 *
 * An event is named by its `:event-type`; an exception by its `:exception-type` (its payload is
 * `{ message }`); an `error` message by `error`, with its `:error-code` and `:error-message` as JSON.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { Message } from '@smithy/types';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { SseEvent } from '../providers/provider.ts';
import { UpstreamCallError } from './errors.ts';
import { frameTooLarge } from './upstream-reply-errors.ts';

/** Prelude (lengths and their CRC) and the message CRC: the smallest possible message. */
const MINIMUM_MESSAGE_BYTES = 16;
/** Event names go into messages and logs: a name outside this shape is not the upstream's to pass on. */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function badFrame(reason: string): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider sent a malformed event-stream message (${reason}); the stream was ended.`,
    200,
    { code: 'upstream_bad_reply' },
  );
}

function header(message: Message, name: string): string | undefined {
  const value = message.headers[name];
  return value?.type === 'string' ? value.value : undefined;
}

function eventOf(message: Message): SseEvent {
  const data = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength).toString('utf8');
  const kind = header(message, ':message-type');
  const named = (name: string | undefined) => (name && EVENT_NAME.test(name) ? name : 'unknownEvent');
  if (kind === 'exception') return { event: named(header(message, ':exception-type') ?? 'unknownException'), data };
  if (kind === 'error') {
    return {
      event: 'error',
      data: JSON.stringify({ code: header(message, ':error-code'), message: header(message, ':error-message') }),
    };
  }
  return { event: named(header(message, ':event-type')), data };
}

export class AwsEventStreamDecoder {
  readonly #limitBytes: number;
  /** bytes not yet part of a whole message, kept as they came: joined once a message is complete */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** the length of the message being read; 0 before its length is known */
  #needed = 0;

  constructor(limitBytes: number) {
    this.#limitBytes = limitBytes;
  }

  /** The events completed by this chunk; throws on an oversized or corrupt message. */
  feed(chunk: Buffer): SseEvent[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const events: SseEvent[] = [];
    for (;;) {
      if (this.#needed === 0) {
        if (this.#pendingBytes < 4) break;
        const length = this.#joined().readUInt32BE(0);
        if (length > this.#limitBytes) throw frameTooLarge(this.#limitBytes);
        if (length < MINIMUM_MESSAGE_BYTES) throw badFrame(`a length of ${length} bytes`);
        this.#needed = length;
      }
      if (this.#pendingBytes < this.#needed) break;
      const all = this.#joined();
      const rest = all.subarray(this.#needed);
      events.push(decoded(all.subarray(0, this.#needed)));
      this.#pending = rest.length > 0 ? [rest] : [];
      this.#pendingBytes = rest.length;
      this.#needed = 0;
    }
    return events;
  }

  /** At the end of the body: a message cut short is an error, not a quiet end. */
  end(): void {
    if (this.#pendingBytes > 0) throw badFrame(`the body ended inside a message, ${this.#pendingBytes} bytes in`);
  }

  #joined(): Buffer {
    if (this.#pending.length > 1) this.#pending = [Buffer.concat(this.#pending)];
    return this.#pending[0]!;
  }
}

function decoded(bytes: Buffer): SseEvent {
  let message: Message;
  try {
    message = codec.decode(bytes);
  } catch (error) {
    throw badFrame((error as Error).message.slice(0, 120));
  }
  return eventOf(message);
}
