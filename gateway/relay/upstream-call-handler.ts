/**
 * @module gateway/relay/upstream-call-handler
 * What the two reply handlers (buffered-reply.ts, streamed-reply.ts) share: ending the upstream call
 * when the client goes, through the controller undici hands the handler, and reading a header from
 * the headers undici parsed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, errors } from 'undici';
import type { ClientAbort } from './client-abort.ts';

export abstract class UpstreamCallHandler {
  readonly #signal: ClientAbort;
  #controller: Dispatcher.DispatchController | null = null;
  #listening = false;

  constructor(signal: ClientAbort) {
    this.#signal = signal;
  }

  /** Ends the call with the client: undici then calls onResponseError with the reason. */
  readonly #onClientAbort = (): void => {
    this.#controller?.abort(new errors.RequestAbortedError());
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#signal.aborted) {
      controller.abort(new errors.RequestAbortedError());
      return;
    }
    this.#controller = controller;
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.on('abort', this.#onClientAbort);
    }
  }

  /** Ends the call with an error of the gateway's own (undici then calls onResponseError with it). */
  protected abortCall(error: Error): void {
    this.#controller?.abort(error);
  }

  /** The call has ended, one way or the other: the client's abort no longer concerns it. */
  protected stopWatching(): void {
    if (this.#listening) {
      this.#listening = false;
      this.#signal.removeListener('abort', this.#onClientAbort);
    }
  }
}

/** A response header by its lower-case name (the first, if repeated). */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
