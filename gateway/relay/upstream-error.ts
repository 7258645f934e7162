/**
 * @module gateway/relay/upstream-error
 * Maps an upstream's error answer to the gateway's error (wire-formats §3.7), keeping the upstream's
 * message where it helps the client and hiding it where it concerns the channel's own credentials.
 */
import { type ErrorKind, UpstreamCallError } from './errors.ts';

function upstreamMessage(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    return typeof message === 'string' ? message.slice(0, 1000) : null;
  } catch {
    return null;
  }
}

export function upstreamError(status: number, bodyText: string, retryAfter: string | undefined): UpstreamCallError {
  const message = upstreamMessage(bodyText);
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
  if (status === 504) return make('timeout', `The upstream provider timed out${said}`);
  if (status >= 500) return make('upstream', `The upstream provider failed (HTTP ${status})${said}`);
  if (status === 402) return make('upstream', `The upstream provider refused to bill this channel (HTTP 402)${said}`);
  return make('invalid_request', `The upstream provider rejected the request${said}`, status);
}
