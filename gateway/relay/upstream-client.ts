/**
 * @module gateway/relay/upstream-client
 * Calls an upstream over a shared keep-alive pool (undici). `transportError` turns transport failures
 * into UpstreamCallErrors with status 0, so the caller can tell them from provider answers.
 */

import type { Dispatcher } from 'undici';
import { Agent, errors } from 'undici';
import type { UpstreamRequest } from '../providers/upstream-route.ts';
import { PRIVATE_ADDRESS_CODE, publicOnlyLookup, refusePrivateLiteral } from '../security/public-lookup.ts';
import { type BufferedReply, BufferedReplyHandler } from './buffered-reply.ts';
import type { ClientAbort } from './client-abort.ts';
import { UpstreamCallError } from './errors.ts';
import { type StreamedReply, StreamedReplyHandler } from './streamed-reply.ts';

export type { UpstreamRequest } from '../providers/upstream-route.ts';

/** The request as it is sent: signed now when it must be. */
export async function readyToSend(upstream: UpstreamRequest): Promise<UpstreamRequest> {
  if (!upstream.signHeaders) return upstream;
  return { url: upstream.url, headers: await upstream.signHeaders(), body: upstream.body };
}

export interface UpstreamClientOptions {
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  connectTimeoutMs?: number;
  /** largest reply read whole (default 32 MB); a larger one ends the call */
  replyLimitBytes?: number;
  /** largest single SSE event of a streamed reply (default 8 MB) */
  frameLimitBytes?: number;
  /** largest streamed reply, all of its events together (default 64 MB) */
  streamLimitBytes?: number;
}

/** A channel's own timeouts; absent ones are the client's defaults. */
export interface UpstreamTimeouts {
  connectTimeoutMs?: number | undefined;
  /** until the response headers (the first byte) */
  firstByteTimeoutMs?: number | undefined;
  /** between two chunks of the body */
  idleTimeoutMs?: number | undefined;
  /** connect only to public addresses, checked at connect time (channels entered in the console) */
  publicOnly?: boolean | undefined;
}

export class UpstreamClient {
  readonly #options: Required<UpstreamClientOptions>;
  readonly #publicLookup = publicOnlyLookup();
  /**
   * One keep-alive pool per connect timeout and address policy (undici sets both per pool); nearly
   * always one or two. A guarded pool never reuses a connection an unguarded one opened.
   */
  readonly #agents = new Map<string, Agent>();

  constructor({
    headersTimeoutMs,
    idleTimeoutMs,
    connectTimeoutMs = 10_000,
    replyLimitBytes = 32 << 20,
    frameLimitBytes = 8 << 20,
    streamLimitBytes = 64 << 20,
  }: UpstreamClientOptions) {
    this.#options = {
      headersTimeoutMs,
      idleTimeoutMs,
      connectTimeoutMs,
      replyLimitBytes,
      frameLimitBytes,
      streamLimitBytes,
    };
  }

  #agent(connectTimeoutMs: number, publicOnly: boolean): Agent {
    const name = `${connectTimeoutMs}:${publicOnly}`;
    let agent = this.#agents.get(name);
    if (!agent) {
      agent = new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 300_000,
        headersTimeout: this.#options.headersTimeoutMs,
        bodyTimeout: this.#options.idleTimeoutMs,
        connect: { timeout: connectTimeoutMs, ...(publicOnly && { lookup: this.#publicLookup }) },
      });
      this.#agents.set(name, agent);
    }
    return agent;
  }

  /**
   * A call whose reply is read whole (buffered-reply.ts): for non-streamed requests, which need the
   * whole body before they answer. Both calls go through the agent's dispatcher with origin and path
   * (undici's top-level functions parse the URL again for every call), and reject with undici's error
   * as it is; `transportError` words it.
   */
  sendBuffered(
    upstream: UpstreamRequest,
    signal: ClientAbort,
    timeouts: UpstreamTimeouts = {},
  ): Promise<BufferedReply> {
    if (upstream.signHeaders) {
      return readyToSend(upstream).then((signed) => this.sendBuffered(signed, signal, timeouts));
    }
    return new Promise<BufferedReply>((resolve, reject) => {
      this.#dispatch(
        upstream,
        timeouts,
        new BufferedReplyHandler(signal, { resolve, reject }, this.#options.replyLimitBytes),
      );
    });
  }

  /** A call whose reply is relayed as it arrives (streamed-reply.ts): for streamed requests. */
  sendStreamed(
    upstream: UpstreamRequest,
    signal: ClientAbort,
    timeouts: UpstreamTimeouts = {},
  ): Promise<StreamedReply> {
    if (upstream.signHeaders) {
      return readyToSend(upstream).then((signed) => this.sendStreamed(signed, signal, timeouts));
    }
    return new Promise<StreamedReply>((resolve, reject) => {
      this.#dispatch(upstream, timeouts, new StreamedReplyHandler(signal, { resolve, reject }, this.#options));
    });
  }

  #dispatch(upstream: UpstreamRequest, timeouts: UpstreamTimeouts, handler: Dispatcher.DispatchHandler): void {
    const { origin, path } = splitUrl(upstream.url);
    const publicOnly = timeouts.publicOnly === true;
    // Thrown inside the callers' promise executors: the call rejects before anything is sent.
    if (publicOnly) refusePrivateLiteral(new URL(origin).hostname);
    this.#agent(timeouts.connectTimeoutMs ?? this.#options.connectTimeoutMs, publicOnly).dispatch(
      {
        origin,
        path,
        method: 'POST',
        headers: upstream.headers,
        body: upstream.body,
        headersTimeout: timeouts.firstByteTimeoutMs ?? this.#options.headersTimeoutMs,
        bodyTimeout: timeouts.idleTimeoutMs ?? this.#options.idleTimeoutMs,
      },
      handler,
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.#agents.values()].map((agent) => agent.close()));
  }
}

/**
 * `https://host:port/v1/chat/completions?x` → origin and path. Channel base URLs are absolute http(s)
 * URLs (checked when the channel is saved), so the path starts at the first slash after the scheme.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? { origin: url, path: '/' } : { origin: url.slice(0, slash), path: url.slice(slash) };
}

/** `midStream`: the upstream had already answered, so it was reached and then broke off. */
export function transportError(error: unknown, midStream = false): UpstreamCallError {
  if (error instanceof UpstreamCallError) return error;
  if (error instanceof errors.BodyTimeoutError) {
    return new UpstreamCallError(
      'timeout',
      'The upstream provider went silent mid-reply for longer than the idle timeout.',
      0,
      { code: 'upstream_timeout' },
    );
  }
  if (midStream) {
    return new UpstreamCallError('upstream', 'The upstream provider broke off the reply before it was complete.', 0, {
      code: 'upstream_stream_interrupted',
    });
  }
  if (error instanceof errors.HeadersTimeoutError) {
    return new UpstreamCallError('timeout', 'The upstream provider did not answer in time.', 0, {
      code: 'upstream_timeout',
    });
  }
  if (error instanceof errors.ConnectTimeoutError) {
    return new UpstreamCallError('timeout', 'Timed out connecting to the upstream provider.', 0, {
      code: 'upstream_timeout',
    });
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code === PRIVATE_ADDRESS_CODE) {
    return new UpstreamCallError(
      'upstream',
      "The channel's host resolves to a private, loopback or link-local address, which the gateway does not " +
        'call for channels entered in the console (ALLOW_PRIVATE_UPSTREAMS=true allows it).',
      0,
      { code: 'upstream_address_refused' },
    );
  }
  return new UpstreamCallError(
    'upstream',
    `Could not reach the upstream provider${code ? ` (${code})` : ''}. Try again; if it persists, check the channel's base URL.`,
    0,
    { code: 'upstream_unreachable' },
  );
}
