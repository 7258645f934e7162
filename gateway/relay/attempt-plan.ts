/**
 * @module gateway/relay/attempt-plan
 * How a relayed request spends its upstream attempts: which channels and keys in which order (the
 * circuit breakers and the channels' tiers decide), how long to wait before the next one, and how a
 * failed attempt is named for the retry chain and the metrics.
 */
import type { RoutableChannel, Route } from './channel-router.ts';
import type { CircuitBreakers } from './circuit-breaker.ts';
import type { ClientAbort } from './client-abort.ts';
import type { UpstreamCallError } from './errors.ts';

/** What went wrong with one attempt, for the retry chain and the metrics. */
export function failureKind(failure: UpstreamCallError): string {
  if (failure.upstreamStatus === 0) return failure.kind === 'timeout' ? 'timeout' : 'unreachable';
  if (failure.upstreamStatus === 429) return 'rate_limited';
  if (failure.upstreamStatus >= 500) return 'server_error';
  return 'client_error';
}

/**
 * The attempts in order: channels whose breaker lets a request through, by tier and weight; a channel
 * with several keys is visited again (with its next key) while attempts remain. When every channel is
 * open the request still goes to them (`forced`): a breaker must not turn a degraded model into a
 * certain failure.
 */
export function attemptPlan(
  routes: Route[],
  maxAttempts: number,
  breakers: CircuitBreakers | undefined,
): Array<{ route: Route; forced: boolean }> {
  // The common case: one channel with one key (forced when its breaker is open, as below).
  if (routes.length === 1 && (routes[0]!.channel.apiKeys?.length ?? 1) <= 1 && maxAttempts >= 1) {
    const route = routes[0]!;
    return [{ route, forced: breakers ? !breakers.isAvailable(route.channel.channelId) : false }];
  }
  const available = breakers ? routes.filter((route) => breakers.isAvailable(route.channel.channelId)) : routes;
  const forced = available.length === 0;
  const ordered = forced ? routes : available;
  const plan = ordered.slice(0, maxAttempts);
  const maxKeys = Math.max(...ordered.map((route) => route.channel.apiKeys?.length ?? 1));
  for (let round = 1; plan.length < maxAttempts && round < maxKeys; round++) {
    for (const route of ordered) {
      if ((route.channel.apiKeys?.length ?? 1) > round && plan.length < maxAttempts) plan.push(route);
    }
  }
  return plan.map((route) => ({ route, forced }));
}

/** The channel's keys in turn (round-robin per channel, on this node). */
export function nextKeyIndex(channel: RoutableChannel): number {
  const count = channel.apiKeys?.length ?? 1;
  if (count <= 1) return 0;
  const index = (channel.keyCursor ?? 0) % count;
  channel.keyCursor = index + 1;
  return index;
}

/** Exponential backoff with jitter before attempt n+1: base × 2^(n−1) × [0.5, 1). */
export function backoff(attempt: number, baseMs: number, signal: ClientAbort): Promise<void> {
  if (baseMs <= 0 || signal.aborted) return Promise.resolve();
  const delay = baseMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => {
    const timer = setTimeout(done, delay);
    function done() {
      clearTimeout(timer);
      signal.removeListener('abort', done);
      resolve();
    }
    signal.once('abort', done);
  });
}
