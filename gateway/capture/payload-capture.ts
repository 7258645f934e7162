/**
 * @module gateway/capture/payload-capture
 * Payload capture of one request (opt-in: docs/payloads.md). The request's bytes are noted as read and
 * the reply's as written to the client (a tee on the response, set only on a captured request; every
 * other request pays one property read). After the reply ends, off the request's path, both sides are
 * scrubbed of secrets, a stream reassembled, the document compressed (zstd) and published as one
 * `payload.captured` event beside the request's own events.
 */
import type { ServerResponse } from 'node:http';
import { constants, zstdCompressSync } from 'node:zlib';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import { newEvent } from '../events/new-event.ts';
import type { EventPublisher } from '../events/publisher.ts';
import { CappedBytes } from './capped-bytes.ts';
import { scrubPayload } from './scrub-payload.ts';
import { reassembleStream } from './stream-reassembly.ts';

/**
 * zstd's fastest level: 66 KB of agent JSON in 0.3 ms to a quarter of its size (the default level:
 * 2 ms, 2 % smaller). Compressed in one synchronous call, after the reply: Node's callback form
 * (libuv's pool, chunked) cost the process 1.6 ms more CPU per captured agent request in the
 * benchmark than this 0.3 ms on the serving thread.
 */
const ZSTD_OPTIONS = { chunkSize: 256 * 1024, params: { [constants.ZSTD_c_compressionLevel]: 1 } };
const DAY_MS = 86_400_000;

/** Each side's cap before it is cut and marked `truncated` (PAYLOAD_CAPTURE_MAX_BYTES). */
export const DEFAULT_CAPTURE_MAX_BYTES = 256 * 1024;

/** The retention in force for a key: its own or its account's, whichever is longer; 0 captures nothing. */
export function captureDaysOf(token: TokenDocument, lookups: LookupReadModel): number {
  const own = token.payloadCaptureDays ?? 0;
  const account = lookups.userById(token.userId)?.payloadCaptureDays ?? 0;
  return Math.max(own, account);
}

export interface CaptureFacts {
  requestId: string;
  userId: string;
  tokenId: string;
  endpoint: string;
  stream: boolean;
  status: number;
}

export class PayloadCapture {
  readonly #days: number;
  readonly #request: CappedBytes;
  readonly #reply: CappedBytes;
  #requestIsJson = false;

  constructor(days: number, maxBytes = DEFAULT_CAPTURE_MAX_BYTES) {
    this.#days = days;
    this.#request = new CappedBytes(maxBytes);
    this.#reply = new CappedBytes(maxBytes);
  }

  /** The body as read; the relay parsed it as JSON, so it is known to be JSON while scrubbing leaves it be. */
  noteRequest(raw: Buffer): void {
    this.#request.keep(raw);
    this.#requestIsJson = true;
  }

  /** Whether there is a body to keep: a request refused before its body was read has none. */
  get hasRequest(): boolean {
    return this.#request.total > 0;
  }

  /**
   * Builds and publishes the event after the current turn of the event loop, so the reply's last
   * write is not delayed by it; a failure costs the payload, never the request.
   */
  publishLater(
    facts: CaptureFacts,
    secrets: readonly string[],
    publisher: EventPublisher,
    onError: (error: unknown) => void,
  ): void {
    if (!this.hasRequest) return;
    setImmediate(() => {
      try {
        publisher.publish(this.event(facts, secrets));
      } catch (error) {
        onError(error);
      }
    });
  }

  /** Copies what the response writes, from here on. */
  tee(response: ServerResponse): void {
    const reply = this.#reply;
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) reply.add(chunk);
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    response.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) reply.add(chunk);
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
  }

  /** The `payload.captured` event of the finished request, `secrets` taken out of both sides. */
  event(facts: CaptureFacts, secrets: readonly string[], now = Date.now()): GatewayEvent {
    const reassemble = facts.stream && facts.status < 300;
    // Printed by hand: a side that is JSON goes in as its text, not parsed and printed again (2 ms
    // for a 66 KB body, on the serving thread). The shape is the contract's `CapturedPayload`.
    const document = `{"endpoint":${JSON.stringify(facts.endpoint)},"stream":${facts.stream},"status":${facts.status},"request":${sideOf(this.#request, secrets, false, this.#requestIsJson)},"reply":${sideOf(this.#reply, secrets, reassemble)}}`;
    const raw = Buffer.from(document, 'utf8');
    const packed = zstdCompressSync(raw, ZSTD_OPTIONS);
    return newEvent(
      'payload.captured',
      {
        requestId: facts.requestId,
        userId: facts.userId,
        tokenId: facts.tokenId,
        expiresAt: new Date(now + this.#days * DAY_MS).toISOString(),
        encoding: 'zstd',
        data: packed.toString('base64'),
        rawBytes: raw.length,
        storedBytes: packed.length,
      },
      new Date(now),
    );
  }
}

/**
 * One side as the JSON text of a `CapturedSide`. Its text, scrubbed, goes in as JSON when it is JSON:
 * as it is when it parses (not checked again for a body the relay parsed, unless scrubbing changed
 * it), else as its reassembled stream; anything else, or a side cut at the cap, as a string.
 */
function sideOf(bytes: CappedBytes, secrets: readonly string[], reassemble: boolean, knownJson = false): string {
  const read = bytes.text();
  const text = scrubPayload(read, secrets);
  const tail = `,"bytes":${bytes.total},"truncated":${bytes.truncated}}`;
  const asText = () => `{"text":${JSON.stringify(text)}${tail}`;
  if (bytes.truncated || text.length === 0) return asText();
  try {
    if (reassemble) return `{"json":${JSON.stringify(reassembleStream(text))}${tail}`;
    if (!(knownJson && text === read)) JSON.parse(text);
    return `{"json":${text}${tail}`;
  } catch {
    return asText();
  }
}
