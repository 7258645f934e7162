/**
 * @module gateway/relay/buffered-reply
 * An upstream reply read whole, for non-streamed requests: a handler on undici's dispatcher interface
 * that collects the body's chunks as they arrive. undici's `request()` builds, for every response, an
 * async resource, a Readable stream and the machinery that consumes it; a relay that needs the body
 * whole before it can answer pays for none of that here.
 */
import type { Dispatcher } from 'undici';
import { errors } from 'undici';
import type { ClientAbort } from './client-abort.ts';

export interface BufferedReply {
  statusCode: number;
  body: Buffer;
  /** A response header by its lower-case name (the first, if repeated). */
  header(name: string): string | undefined;
}

type Settle = { resolve: (reply: BufferedReply) => void; reject: (error: Error) => void };

/** Legacy handler methods (onConnect … onError): the ones undici's HTTP/1 client calls without a wrapper. */
export class BufferedReplyHandler implements Dispatcher.DispatchHandler {
  readonly #signal: ClientAbort;
  readonly #settle: Settle;
  #chunks: Buffer[] = [];
  #size = 0;
  #statusCode = 0;
  #rawHeaders: Buffer[] = [];
  #abort: ((reason: Error) => void) | null = null;
  #listening = false;

  constructor(signal: ClientAbort, settle: Settle) {
    this.#signal = signal;
    this.#settle = settle;
  }

  /** Ends the call with the client: undici then calls onError with the reason. */
  readonly #onClientAbort = (): void => {
    this.#abort?.(new errors.RequestAbortedError());
  };

  onConnect(abort: (reason: Error) => void): void {
    if (this.#signal.aborted) {
      abort(new errors.RequestAbortedError());
      return;
    }
    this.#abort = abort;
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.on('abort', this.#onClientAbort);
    }
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational answers come before the real one.
    if (statusCode >= 200) {
      this.#statusCode = statusCode;
      this.#rawHeaders = rawHeaders;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    return true;
  }

  onComplete(): void {
    this.#stopListening();
    const chunks = this.#chunks;
    const rawHeaders = this.#rawHeaders;
    this.#settle.resolve({
      statusCode: this.#statusCode,
      body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size),
      header: (name) => headerOf(rawHeaders, name),
    });
  }

  onError(error: Error): void {
    this.#stopListening();
    this.#settle.reject(error);
  }

  #stopListening(): void {
    if (this.#listening) {
      this.#listening = false;
      this.#signal.removeListener('abort', this.#onClientAbort);
    }
  }
}

/** Raw headers alternate name and value; names are compared without regard to case. */
export function headerOf(rawHeaders: Buffer[], name: string): string | undefined {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toString('latin1').toLowerCase() === name) return rawHeaders[index + 1]!.toString('latin1');
  }
  return undefined;
}
