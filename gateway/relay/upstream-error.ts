/**
 * @module gateway/relay/upstream-error
 * Maps an upstream's error answer to the gateway's error (docs/wire-formats.md §3.7), keeping the upstream's
 * message where it helps the client and hiding it where it concerns the channel's own credentials.
 * The message is scrubbed of the channel's keys and of anything shaped like a key before it goes
 * anywhere: the client's answer, the request's record and the logs all take it from here. A prompt
 * refused by Azure's content filter keeps the categories it flagged and the code `content_filter`.
 */
import { contentFilterRefusal } from '../providers/azure/content-filter.ts';
import { channelSecrets, type SecretHolder, scrubSecrets } from '../security/scrub-secrets.ts';
import { type ErrorKind, UpstreamCallError } from './errors.ts';

const SHOWN_MESSAGE_LENGTH = 1000;
/** Scrubbed past what is shown, so that a key the cut would split is still found whole. */
const SCRUBBED_MESSAGE_LENGTH = 4 * SHOWN_MESSAGE_LENGTH;

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function upstreamMessage(body: unknown, channel: SecretHolder): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const { error, message: topMessage } = body as { error?: { message?: unknown } | string; message?: unknown };
  const message = typeof error === 'string' ? error : (error?.message ?? topMessage);
  if (typeof message !== 'string') return null;
  const scrubbed = scrubSecrets(message.slice(0, SCRUBBED_MESSAGE_LENGTH), channelSecrets(channel));
  return scrubbed.slice(0, SHOWN_MESSAGE_LENGTH);
}

/** The answer's headers, as the relay's replies read them. */
export interface ReplyHeaders {
  header(name: string): string | undefined;
}

const MILLISECONDS = /^\d{1,9}(\.\d+)?$/;

/**
 * When to retry, as the upstream said it: `retry-after` (seconds or a date) goes through as it is,
 * and Azure's and OpenAI's `retry-after-ms` too, which alone also gives `retry-after` in whole
 * seconds (rounded up) for clients that read only that.
 */
export function retryHeaders(reply: ReplyHeaders | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const seconds = reply?.header('retry-after');
  const milliseconds = reply?.header('retry-after-ms')?.trim();
  if (seconds) headers['retry-after'] = seconds;
  if (milliseconds && MILLISECONDS.test(milliseconds)) {
    headers['retry-after-ms'] = milliseconds;
    if (!seconds) headers['retry-after'] = String(Math.max(1, Math.ceil(Number(milliseconds) / 1000)));
  }
  return headers;
}

/**
 * Google answers a key it does not know with 400 INVALID_ARGUMENT, saying so only in an ErrorInfo
 * detail: read as what it is, a refusal of the channel's credentials, not a fault of the request.
 */
function keyRefused(status: number, text: string): boolean {
  if (status !== 400 || !text.includes('API_KEY_INVALID')) return false;
  try {
    const details = (JSON.parse(text) as { error?: { details?: unknown } }).error?.details;
    return Array.isArray(details) && details.some((detail) => detail?.reason === 'API_KEY_INVALID');
  } catch {
    return false;
  }
}

/** `channel`: whose keys the upstream may have echoed (the one that answered). */
export function upstreamError(
  status: number,
  bodyText: string,
  reply: ReplyHeaders | undefined,
  channel: SecretHolder,
): UpstreamCallError {
  const body = parsed(bodyText);
  const message = upstreamMessage(body, channel);
  const said = message ? `: ${message}` : '';
  const headers = retryHeaders(reply);
  const make = (kind: ErrorKind, text: string, clientStatus?: number) =>
    new UpstreamCallError(kind, text, status, { ...(clientStatus && { status: clientStatus }), headers });
  const filtered = status === 400 ? contentFilterRefusal(body) : null;
  if (filtered) {
    return new UpstreamCallError(
      'invalid_request',
      `${filtered.detail} The upstream provider said${said || ' nothing more'}`,
      status,
      {
        code: 'content_filter',
        param: filtered.param,
        headers,
      },
    );
  }
  if (status === 401 || status === 403 || keyRefused(status, bodyText)) {
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
