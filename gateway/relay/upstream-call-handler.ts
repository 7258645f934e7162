/**
 * @module gateway/relay/upstream-call-handler
 * What the two reply handlers (buffered-reply.ts, streamed-reply.ts) share: ending the upstream call
 * when the client goes, through the abort function undici hands the handler, and reading a header
 * from undici's raw header list.
 */
import { errors } from 'undici';
import type { ClientAbort } from './client-abort.ts';

/** Legacy handler methods (onConnect … onError): the ones undici's HTTP/1 client calls without a wrapper. */
export abstract class UpstreamCallHandler {
  readonly #signal: ClientAbort;
  #abort: ((reason: Error) => void) | null = null;
  #listening = false;

  constructor(signal: ClientAbort) {
    this.#signal = signal;
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

  /** Ends the call with an error of the gateway's own (undici then calls onError with it). */
  protected abortCall(error: Error): void {
    this.#abort?.(error);
  }

  /** The call has ended, one way or the other: the client's abort no longer concerns it. */
  protected stopWatching(): void {
    if (this.#listening) {
      this.#listening = false;
      this.#signal.removeListener('abort', this.#onClientAbort);
    }
  }
}

/**
 * `content-type` and `content-encoding` in one pass, for every streamed reply: only names of the
 * right length are decoded, so the usual dozen other headers cost a length comparison each.
 */
export function contentHeadersOf(rawHeaders: Buffer[]): { type: string | undefined; encoding: string | undefined } {
  let type: string | undefined;
  let encoding: string | undefined;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const length = rawHeaders[index]!.length;
    if (length !== 12 && length !== 16) continue;
    const name = rawHeaders[index]!.toString('latin1').toLowerCase();
    if (name === 'content-type') type ??= rawHeaders[index + 1]!.toString('latin1');
    else if (name === 'content-encoding') encoding ??= rawHeaders[index + 1]!.toString('latin1');
  }
  return { type, encoding };
}

/** Raw headers alternate name and value; names are compared without regard to case. */
export function headerOf(rawHeaders: Buffer[], name: string): string | undefined {
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toString('latin1').toLowerCase() === name) return rawHeaders[index + 1]!.toString('latin1');
  }
  return undefined;
}
