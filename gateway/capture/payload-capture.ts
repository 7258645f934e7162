/**
 * @module gateway/capture/payload-capture
 * Payload capture of one request (opt-in: docs/payloads.md). The request's bytes are noted as read and
 * the reply's as written to the client (a tee on the response, set only on a captured request; every
 * other request pays one property read). After the reply ends, off the request's path, both sides are
 * scrubbed of secrets, a stream reassembled, the document compressed on libuv's pool (zstd) and
 * published as one `payload.captured` event beside the request's own events.
 */
import type { ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { zstdCompress } from 'node:zlib';
import type { CapturedPayload, CapturedSide, GatewayEvent } from '../../contracts/events/index.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import { newEvent } from '../events/new-event.ts';
import type { EventPublisher } from '../events/publisher.ts';
import { scrubSecrets } from '../security/scrub-secrets.ts';
import { CappedBytes } from './capped-bytes.ts';
import { reassembleStream } from './stream-reassembly.ts';

const compress = promisify(zstdCompress);
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

  constructor(days: number, maxBytes = DEFAULT_CAPTURE_MAX_BYTES) {
    this.#days = days;
    this.#request = new CappedBytes(maxBytes);
    this.#reply = new CappedBytes(maxBytes);
  }

  noteRequest(raw: Uint8Array): void {
    this.#request.add(raw);
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
      this.event(facts, secrets).then((event) => publisher.publish(event), onError);
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
  async event(facts: CaptureFacts, secrets: readonly string[], now = Date.now()): Promise<GatewayEvent> {
    const document: CapturedPayload = {
      endpoint: facts.endpoint,
      stream: facts.stream,
      status: facts.status,
      request: sideOf(this.#request, secrets, JSON.parse),
      reply: sideOf(this.#reply, secrets, facts.stream && facts.status < 300 ? reassembleStream : JSON.parse),
    };
    const raw = Buffer.from(JSON.stringify(document), 'utf8');
    const packed = await compress(raw);
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

function sideOf(bytes: CappedBytes, secrets: readonly string[], read: (text: string) => unknown): CapturedSide {
  const text = scrubSecrets(bytes.text(), secrets);
  if (bytes.truncated) return { text, bytes: bytes.total, truncated: true };
  try {
    return { json: read(text), bytes: bytes.total, truncated: false };
  } catch {
    return { text, bytes: bytes.total, truncated: false };
  }
}
