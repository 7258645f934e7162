/**
 * @module gateway/relay/admission
 * Whether a relayed request may go ahead on this node: the node's event log keeping up, and the key's
 * rate limits, with the headers that tell the client where it stands.
 */
import type { ServerResponse } from 'node:http';
import type { RateLimitDecision } from '../../stores/ports.ts';
import { GatewayError } from './errors.ts';

/**
 * A node whose event log has fallen this far behind (a store that cannot keep up, a full disk) takes
 * no new requests until it catches up: their records would otherwise pile up in memory without bound.
 * The relay waits below this hard mark (backlog-admission.ts); this is the refusal above it.
 */
export function refuseWhenEventsBehind(queued: number, limit: number | undefined): void {
  if (limit === undefined || queued < limit) return;
  throw eventsBehindError(queued);
}

/** The 503 of a node whose event log is behind: `queued` records waiting, or null after a wait too long. */
export function eventsBehindError(queued: number | null): GatewayError {
  const behind = queued === null ? 'a request waited too long for it' : `${queued} records waiting`;
  return new GatewayError(
    'overloaded',
    `This gateway node is recording requests more slowly than they arrive (${behind}); try again in a moment.`,
    { code: 'event_log_behind', headers: { 'retry-after': '1' } },
  );
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))}s`;
}

/** OpenAI's `x-ratelimit-*` headers, for the limits the key has (none for an unlimited key). */
export function setRateLimitHeaders(response: ServerResponse, decision: RateLimitDecision): void {
  if (decision.requests) {
    response.setHeader('x-ratelimit-limit-requests', String(decision.requests.limit));
    response.setHeader('x-ratelimit-remaining-requests', String(decision.requests.remaining));
    response.setHeader('x-ratelimit-reset-requests', seconds(decision.requests.resetMs));
  }
  if (decision.tokens) {
    response.setHeader('x-ratelimit-limit-tokens', String(decision.tokens.limit));
    response.setHeader('x-ratelimit-remaining-tokens', String(decision.tokens.remaining));
    response.setHeader('x-ratelimit-reset-tokens', seconds(decision.tokens.resetMs));
  }
}

export function rateLimitError(decision: RateLimitDecision): GatewayError {
  const window = decision.refusedBy === 'tokens' ? decision.tokens! : decision.requests!;
  const retryAfter = String(Math.max(1, Math.ceil(window.resetMs / 1000)));
  const what = decision.refusedBy === 'tokens' ? 'tokens per minute (TPM)' : 'requests per minute (RPM)';
  return new GatewayError(
    'rate_limit',
    `Rate limit reached for this API key: ${window.limit} ${what}. Try again in ${retryAfter} s, or ask for a higher limit in the console.`,
    { code: 'rate_limit_exceeded', headers: { 'retry-after': retryAfter } },
  );
}
