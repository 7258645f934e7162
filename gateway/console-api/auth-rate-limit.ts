/**
 * @module gateway/console-api/auth-rate-limit
 * Slows password guessing and mass registration: sign-in and registration attempts are counted in a
 * fixed window per client address and per email; past the limit the answer is 429 `too_many_attempts`
 * with `retry-after`. Counters live in this process: in the cluster each gateway node counts on its own
 * (a guesser spread over N nodes gets N times the attempts). The client address is the socket's peer
 * (`trust proxy` is off): behind a reverse proxy every client shares the proxy's address, so the
 * per-address limit is set higher than the per-email one.
 *
 * Settings: `AUTH_RATE_LIMIT_ATTEMPTS` (per email, default 10), `AUTH_RATE_LIMIT_IP_ATTEMPTS` (per
 * address, default 5 × the per-email limit) and `AUTH_RATE_LIMIT_WINDOW_MS` (default 300000, 5 min).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from './api-error.ts';

export interface AuthRateLimitSettings {
  /** attempts per email per window */
  attempts: number;
  /** attempts per client address per window */
  addressAttempts: number;
  windowMs: number;
}

/** Most counters kept at once: a flood of made-up emails cannot grow memory past this. */
const MAX_COUNTERS = 100_000;

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer, got "${value}".`);
  return parsed;
}

export function readAuthRateLimitSettings(environment: NodeJS.ProcessEnv = process.env): AuthRateLimitSettings {
  const attempts = positiveInteger(environment.AUTH_RATE_LIMIT_ATTEMPTS, 10, 'AUTH_RATE_LIMIT_ATTEMPTS');
  return {
    attempts,
    addressAttempts: positiveInteger(
      environment.AUTH_RATE_LIMIT_IP_ATTEMPTS,
      attempts * 5,
      'AUTH_RATE_LIMIT_IP_ATTEMPTS',
    ),
    windowMs: positiveInteger(environment.AUTH_RATE_LIMIT_WINDOW_MS, 300_000, 'AUTH_RATE_LIMIT_WINDOW_MS'),
  };
}

interface Counter {
  windowStart: number;
  count: number;
}

/** Fixed-window counters: one window per key, restarted once it has passed. */
export class AttemptCounter {
  readonly #counters = new Map<string, Counter>();
  readonly #windowMs: number;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  get size(): number {
    return this.#counters.size;
  }

  /** Counts one attempt; returns the attempts in the current window (this one included) and when it ends. */
  hit(key: string, now: number): { count: number; resetAt: number } {
    let counter = this.#counters.get(key);
    if (!counter || now - counter.windowStart >= this.#windowMs) {
      if (counter) this.#counters.delete(key);
      if (this.#counters.size >= MAX_COUNTERS) this.#evict(now);
      counter = { windowStart: now, count: 0 };
      this.#counters.set(key, counter);
    }
    counter.count += 1;
    return { count: counter.count, resetAt: counter.windowStart + this.#windowMs };
  }

  /** Drops finished windows; if all are still running, the oldest (insertion order) make room. */
  #evict(now: number): void {
    for (const [key, counter] of this.#counters) {
      if (now - counter.windowStart >= this.#windowMs) this.#counters.delete(key);
    }
    for (const key of this.#counters.keys()) {
      if (this.#counters.size < MAX_COUNTERS) break;
      this.#counters.delete(key);
    }
  }
}

export function authRateLimit(
  settings: AuthRateLimitSettings = readAuthRateLimitSettings(),
  now: () => number = Date.now,
): RequestHandler {
  const byAddress = new AttemptCounter(settings.windowMs);
  const byEmail = new AttemptCounter(settings.windowMs);
  return function limitAuthAttempts(request: Request, response: Response, next: NextFunction) {
    const at = now();
    const address = request.socket.remoteAddress ?? 'unknown';
    const email = (request.body as { email?: unknown } | undefined)?.email;
    const checks = [{ ...byAddress.hit(`address:${address}`, at), limit: settings.addressAttempts }];
    if (typeof email === 'string' && email.length <= 254)
      checks.push({ ...byEmail.hit(`email:${email.trim().toLowerCase()}`, at), limit: settings.attempts });
    const over = checks.filter((check) => check.count > check.limit);
    if (over.length === 0) return next();
    const retryAfter = Math.max(1, Math.ceil((Math.max(...over.map((check) => check.resetAt)) - at) / 1000));
    response.setHeader('retry-after', String(retryAfter));
    next(
      new ApiError(
        429,
        'too_many_attempts',
        `Too many sign-in or registration attempts; try again in ${retryAfter} s.`,
      ),
    );
  };
}
