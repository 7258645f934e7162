/**
 * @module gateway/relay/upstream-reply-errors
 * Replies the relay refuses to pass on, whatever their status: too large to hold, a redirect, a
 * stream that is compressed or is not an event stream at all. Each ends the upstream call and is
 * answered 502 (or, once a stream has started, as an in-stream error) with what the upstream did.
 */
import { UpstreamCallError } from './errors.ts';

const megabytes = (bytes: number) => `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;

/** An upstream's header value, shown to the client: printable ASCII, short. */
const shown = (value: string) => value.replace(/[^\x20-\x7e]/g, '?').slice(0, 80);

export function replyTooLarge(limitBytes: number, upstreamStatus: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider's reply is larger than the gateway accepts (${megabytes(limitBytes)}, UPSTREAM_REPLY_LIMIT_BYTES); it was not read further.`,
    upstreamStatus,
    { code: 'upstream_reply_too_large' },
  );
}

export function frameTooLarge(limitBytes: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider sent a stream event larger than the gateway accepts (${megabytes(limitBytes)}, UPSTREAM_FRAME_LIMIT_BYTES); the stream was ended.`,
    200,
    { code: 'upstream_frame_too_large' },
  );
}

export function streamTooLarge(limitBytes: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider's stream is larger than the gateway relays (${megabytes(limitBytes)}, UPSTREAM_STREAM_LIMIT_BYTES); it was ended there. Ask for a shorter reply (a lower max_tokens).`,
    200,
    { code: 'upstream_stream_too_large' },
  );
}

export function redirected(upstreamStatus: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream answered with a redirect (HTTP ${upstreamStatus}), which the gateway does not follow. An administrator should check the channel's base URL.`,
    upstreamStatus,
    { code: 'upstream_redirect' },
  );
}

export function compressed(encoding: string, upstreamStatus: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider sent its reply compressed (content-encoding: ${shown(encoding)}), which the gateway does not decode.`,
    upstreamStatus,
    { code: 'upstream_bad_reply' },
  );
}

export function notEventStream(contentType: string, upstreamStatus: number): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    `The upstream provider answered a streamed request with ${shown(contentType)}, not an event stream.`,
    upstreamStatus,
    // Refused on its headers, before the client's first byte: the next channel may answer.
    { code: 'upstream_bad_reply', retryable: true },
  );
}

export function noEvents(): UpstreamCallError {
  return new UpstreamCallError(
    'upstream',
    'The upstream provider ended the stream without sending a single event (the body was not server-sent events).',
    200,
    { code: 'upstream_bad_reply' },
  );
}
