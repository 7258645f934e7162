/**
 * @module gateway/relay/upstream-error
 * Maps an upstream's error answer to the gateway's error (docs/wire-formats.md §3.7), keeping the upstream's
 * message where it helps the client and hiding it where it concerns the channel's own credentials.
 * The message is scrubbed of the channel's keys and of anything shaped like a key before it goes
 * anywhere: the client's answer, the request's record and the logs all take it from here.
 */
import { channelSecrets, type SecretHolder, scrubSecrets } from '../security/scrub-secrets.ts';
import { type ErrorKind, UpstreamCallError } from './errors.ts';

const SHOWN_MESSAGE_LENGTH = 1000;
/** Scrubbed past what is shown, so that a key the cut would split is still found whole. */
const SCRUBBED_MESSAGE_LENGTH = 4 * SHOWN_MESSAGE_LENGTH;

function upstreamMessage(text: string, channel: SecretHolder): string | null {
  let message: unknown;
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
  } catch {
    return null;
  }
  if (typeof message !== 'string') return null;
  const scrubbed = scrubSecrets(message.slice(0, SCRUBBED_MESSAGE_LENGTH), channelSecrets(channel));
  return scrubbed.slice(0, SHOWN_MESSAGE_LENGTH);
}

/** `channel`: whose keys the upstream may have echoed (the one that answered). */
export function upstreamError(
  status: number,
  bodyText: string,
  retryAfter: string | undefined,
  channel: SecretHolder,
): UpstreamCallError {
  const message = upstreamMessage(bodyText, channel);
  const said = message ? `: ${message}` : '';
  const headers: Record<string, string> = retryAfter ? { 'retry-after': retryAfter } : {};
  const make = (kind: ErrorKind, text: string, clientStatus?: number) =>
    new UpstreamCallError(kind, text, status, { ...(clientStatus && { status: clientStatus }), headers });
  if (status === 401 || status === 403) {
    return make(
      'upstream',
      `The upstream provider refused this channel's credentials (HTTP ${status}). An administrator should check the channel's API key.`,
    );
  }
  if (status === 429) return make('rate_limit', `The upstream provider is rate limiting requests${said}`);
  if (status === 404) return make('not_found', `The upstream provider does not know this model or route${said}`);
  if (status === 413) return make('request_too_large', `The upstream provider says the request is too large${said}`);
  if (status === 503 || status === 529)
    return make('overloaded', `The upstream provider is overloaded (HTTP ${status})${said}`);
  // 408 is the upstream's own timeout (Bedrock's ModelTimeoutException), not a fault of the client's request.
  if (status === 504 || status === 408) return make('timeout', `The upstream provider timed out${said}`);
  if (status >= 500) return make('upstream', `The upstream provider failed (HTTP ${status})${said}`);
  if (status === 402) return make('upstream', `The upstream provider refused to bill this channel (HTTP 402)${said}`);
  return make('invalid_request', `The upstream provider rejected the request${said}`, status);
}
