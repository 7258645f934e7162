/**
 * @module gateway/relay/buffered-reply
 * An upstream reply read whole, for non-streamed requests: a handler on undici's dispatcher interface
 * that collects the body's chunks as they arrive. undici's `request()` builds, for every response, an
 * async resource, a Readable stream and the machinery that consumes it; a relay that needs the body
 * whole before it can answer pays for none of that here. A body over the limit ends the call.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ClientAbort } from './client-abort.ts';
import { headerOf, UpstreamCallHandler } from './upstream-call-handler.ts';
import { replyTooLarge } from './upstream-reply-errors.ts';

export interface BufferedReply {
  statusCode: number;
  body: Buffer;
  /** A response header by its lower-case name (the first, if repeated). */
  header(name: string): string | undefined;
}

type Settle = { resolve: (reply: BufferedReply) => void; reject: (error: Error) => void };

export class BufferedReplyHandler extends UpstreamCallHandler implements Dispatcher.DispatchHandler {
  readonly #settle: Settle;
  readonly #limitBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #statusCode = 0;
  #headers: IncomingHttpHeaders = {};

  constructor(signal: ClientAbort, settle: Settle, limitBytes: number) {
    super(signal);
    this.#settle = settle;
    this.#limitBytes = limitBytes;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx informational answers come before the real one.
    if (statusCode >= 200) {
      this.#statusCode = statusCode;
      this.#headers = headers;
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.#limitBytes) {
      // Drop what was read, so that the memory goes back now, and end the call (undici calls onResponseError).
      this.#chunks = [];
      this.abortCall(replyTooLarge(this.#limitBytes, this.#statusCode));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.stopWatching();
    const chunks = this.#chunks;
    const headers = this.#headers;
    this.#settle.resolve({
      statusCode: this.#statusCode,
      body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size),
      header: (name) => headerOf(headers, name),
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.stopWatching();
    this.#settle.reject(error);
  }
}
