/**
 * @module gateway/relay/streamed-reply
 * An upstream reply relayed as it arrives, for streamed requests: a handler on undici's dispatcher
 * interface that hands each chunk of the body to the relay in the call that received it. undici's
 * `request()` would wrap the body in a Readable, and reading that with an async iterator costs a
 * promise and a microtask per chunk; here a full client socket pauses the upstream read directly
 * through undici's controller (whose `resume` starts it again).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ClientAbort } from './client-abort.ts';
import { headerOf, UpstreamCallHandler } from './upstream-call-handler.ts';

/** Takes one chunk of the body; false pauses the upstream until `resume()`. */
export type ChunkSink = (chunk: Buffer) => boolean;

export interface StreamedReply {
  statusCode: number;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** the largest single SSE event the reader should accept, in bytes */
  frameLimitBytes: number;
  /** the most of the body the reader should relay, in bytes */
  streamLimitBytes: number;
  header(name: string): string | undefined;
  /** Delivers the body's chunks to `sink`, in order; resolves when the body ends, rejects if it breaks. */
  consume(sink: ChunkSink): Promise<void>;
  /** Starts reading the upstream again after a sink returned false. */
  resume(): void;
  /** Ends the call without reading the body (a reply the relay refuses on its headers). */
  abort(error: Error): void;
}

type Settle = { resolve: (reply: StreamedReply) => void; reject: (error: Error) => void };

/** Bytes kept before `consume` is called; past this the upstream read pauses until it is. */
const EARLY_LIMIT = 64 * 1024;

export class StreamedReplyHandler extends UpstreamCallHandler implements Dispatcher.DispatchHandler {
  #settleHeaders: Settle | null;
  #controller: Dispatcher.DispatchController | null = null;
  /** Chunks that arrived before `consume` was called (the same socket read can carry headers and data). */
  #early: Buffer[] = [];
  #earlyBytes = 0;
  #sink: ChunkSink | null = null;
  #ended = false;
  #failure: Error | null = null;
  #settleBody: { resolve: () => void; reject: (error: Error) => void } | null = null;
  readonly #limits: { frameLimitBytes: number; streamLimitBytes: number };

  constructor(signal: ClientAbort, settle: Settle, limits: { frameLimitBytes: number; streamLimitBytes: number }) {
    super(signal);
    this.#settleHeaders = settle;
    this.#limits = limits;
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx informational answers come before the real one.
    if (statusCode < 200) return;
    this.#controller = controller;
    const settle = this.#settleHeaders;
    this.#settleHeaders = null;
    settle?.resolve({
      statusCode,
      contentType: headerOf(headers, 'content-type'),
      contentEncoding: headerOf(headers, 'content-encoding'),
      frameLimitBytes: this.#limits.frameLimitBytes,
      streamLimitBytes: this.#limits.streamLimitBytes,
      header: (name) => headerOf(headers, name),
      consume: (sink) => this.#consume(sink),
      resume: () => this.#controller?.resume(),
      abort: (error) => this.abortCall(error),
    });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#sink) {
      if (!this.#sink(chunk)) controller.pause();
      return;
    }
    this.#early.push(chunk);
    this.#earlyBytes += chunk.length;
    // Nothing reads the reply yet: hold the upstream rather than the whole body in memory.
    if (this.#earlyBytes >= EARLY_LIMIT) controller.pause();
  }

  onResponseEnd(): void {
    this.stopWatching();
    this.#ended = true;
    this.#settleBody?.resolve();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.stopWatching();
    this.#failure = error;
    if (this.#settleHeaders) {
      this.#settleHeaders.reject(error);
      this.#settleHeaders = null;
    }
    this.#settleBody?.reject(error);
  }

  #consume(sink: ChunkSink): Promise<void> {
    if (this.#sink) return Promise.reject(new Error('The reply is already being consumed.'));
    return new Promise<void>((resolve, reject) => {
      this.#settleBody = { resolve, reject };
      const early = this.#early;
      this.#early = [];
      try {
        // A sink that is full asks for `resume` itself; the upstream pauses at its next chunk.
        for (const chunk of early) sink(chunk);
      } catch (error) {
        // As undici does when a sink throws on a later chunk: the call ends with the error.
        this.abortCall(error as Error);
        reject(error);
        return;
      }
      this.#sink = sink;
      if (this.#failure) reject(this.#failure);
      else if (this.#ended) resolve();
      else if (this.#earlyBytes >= EARLY_LIMIT) this.#controller?.resume();
      this.#earlyBytes = 0;
    });
  }
}
