/**
 * @module gateway/relay/failure-origin
 * Whose fault a failed upstream attempt was. Only the upstream's own answers and the transport to it
 * (undici, the socket, DNS, TLS) may count against a channel: retried elsewhere, fed to its circuit
 * breaker, and answered as a 5xx that names the upstream. An exception of the gateway's own (a stack
 * overflow, a converter's TypeError, an argument undici refused) says nothing about the channel, and
 * blaming it would let one client's request open the breaker for everyone.
 */
import { errors } from 'undici';
import { GatewayError, UpstreamCallError } from './errors.ts';

/** undici errors that mean the gateway built a call undici would not make, not that the call failed. */
const refusedByUndici = [errors.InvalidArgumentError, errors.InvalidReturnValueError, errors.NotSupportedError];

export function isUpstreamFailure(error: unknown): boolean {
  if (error instanceof UpstreamCallError) return true;
  if (error instanceof GatewayError) return false;
  if (error instanceof errors.UndiciError) return !refusedByUndici.some((type) => error instanceof type);
  // Node's network errors carry a code (ECONNREFUSED, ENOTFOUND, ERR_TLS_…); its argument errors,
  // which carry one too, are TypeErrors and RangeErrors.
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError) return false;
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/** A failure of the gateway's own, in the client's terms: a 500 that blames no channel. */
export function internalError(): GatewayError {
  return new GatewayError(
    'internal',
    'The gateway failed while handling this request (not the upstream provider). Try again; if it persists, report the request id to the administrator.',
    { code: 'internal_error' },
  );
}
