/**
 * @module gateway/console-api/auth-rate-limit
 * Slows password guessing and mass registration without giving a stranger the power to lock an owner
 * out. Attempts are counted in fixed windows in this process (in the cluster each node counts on its
 * own, so a guesser spread over N nodes gets N times the attempts):
 * - per client address across every email, against spraying many accounts: `AUTH_RATE_LIMIT_IP_ATTEMPTS`;
 * - per (email, client address) pair, against guessing one account from one place: `AUTH_RATE_LIMIT_ATTEMPTS`;
 * - per email, against guessing one account from many places: `AUTH_RATE_LIMIT_EMAIL_ATTEMPTS`. Only
 *   addresses that have not signed in to that account lately count and are held to it, and an attempt
 *   the pair limit refused does not count, so a stranger can neither lock the owner out of the owner's
 *   usual address nor add more than the pair limit per address.
 * The current-password check of a password change is counted per account and per address. Past a limit
 * the answer is 429 `too_many_attempts` with `retry-after`. See docs/reliability.md for the reasoning.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthRateLimitSettings } from '../config/auth-rate-limit-settings.ts';
import { clientAddressOf } from '../security/ip-allowlist.ts';
import { ipv6Groups } from '../security/url-guard.ts';
import { ApiError } from './api-error.ts';
import { AttemptCounter, type Attempts, KnownPairs } from './attempt-counter.ts';

/** How long a successful sign-in makes its address the account's own for the per-email limit. */
const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;

/**
 * The client a limit counts: its address (the socket's peer, or with `TRUST_PROXY` the address the
 * trusted proxy saw), and for IPv6 its /64, since one host usually holds a whole /64 to pick from.
 */
export function clientOf(request: Request, trustProxyHops: number): string {
  const address = clientAddressOf(request, trustProxyHops);
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

function normalEmail(email: unknown): string | null {
  return typeof email === 'string' && email.length <= 254 ? email.trim().toLowerCase() : null;
}

/** Seconds until the last of the exceeded windows ends (at least 1). */
function secondsUntil(exceeded: readonly Attempts[], now: number): number {
  return Math.max(1, Math.ceil((Math.max(...exceeded.map((attempts) => attempts.resetAt)) - now) / 1000));
}

function refuse(response: Response, retryAfter: number, what: string): ApiError {
  response.setHeader('retry-after', String(retryAfter));
  return new ApiError(429, 'too_many_attempts', `Too many ${what}; try again in ${retryAfter} s.`);
}

export class SignInLimiter {
  readonly #settings: AuthRateLimitSettings;
  readonly #now: () => number;
  readonly #byAddress: AttemptCounter;
  readonly #byPair: AttemptCounter;
  readonly #byEmail: AttemptCounter;
  readonly #known = new KnownPairs(KNOWN_ADDRESS_MS);

  constructor(settings: AuthRateLimitSettings, now: () => number = Date.now) {
    this.#settings = settings;
    this.#now = now;
    this.#byAddress = new AttemptCounter(settings.windowMs);
    this.#byPair = new AttemptCounter(settings.windowMs);
    this.#byEmail = new AttemptCounter(settings.windowMs);
  }

  /** Counts a sign-in or registration attempt; the seconds to wait when it is over a limit, else null. */
  attempt(client: string, email: string | null): number | null {
    const at = this.#now();
    const address = this.#byAddress.hit(`address:${client}`, at);
    if (address.count > this.#settings.addressAttempts) return secondsUntil([address], at);
    if (email === null) return null;
    const pair = this.#byPair.hit(`${email}\n${client}`, at);
    if (pair.count > this.#settings.attempts) return secondsUntil([pair], at);
    if (this.#known.has(`${email}\n${client}`, at)) return null;
    const byEmail = this.#byEmail.hit(email, at);
    return byEmail.count > this.#settings.emailAttempts ? secondsUntil([byEmail], at) : null;
  }

  /** The password was right: this address is the account's own for the per-email limit from now on. */
  succeeded(client: string, email: string): void {
    this.#known.remember(`${email.trim().toLowerCase()}\n${client}`, this.#now());
  }

  /** Middleware for the sign-in and registration routes (the email is the body's). */
  middleware(trustProxyHops: number): RequestHandler {
    return (request: Request, response: Response, next: NextFunction) => {
      const email = normalEmail((request.body as { email?: unknown } | undefined)?.email);
      const retryAfter = this.attempt(clientOf(request, trustProxyHops), email);
      if (retryAfter === null) return next();
      next(refuse(response, retryAfter, 'sign-in or registration attempts'));
    };
  }
}

/**
 * Middleware for `/auth/password`: the current-password check is a password guess like a sign-in, so it
 * is counted per account and per address. Runs after the session middleware; without a user it lets the
 * route answer 401.
 */
export function limitPasswordChecks(
  trustProxyHops: number,
  settings: AuthRateLimitSettings,
  now: () => number = Date.now,
): RequestHandler {
  const byAccount = new AttemptCounter(settings.windowMs);
  const byAddress = new AttemptCounter(settings.windowMs);
  return function limitChecks(request: Request, response: Response, next: NextFunction) {
    if (!request.user) return next();
    const at = now();
    const account = byAccount.hit(request.user.userId, at);
    const address = byAddress.hit(clientOf(request, trustProxyHops), at);
    const exceeded = [];
    if (account.count > settings.attempts) exceeded.push(account);
    if (address.count > settings.addressAttempts) exceeded.push(address);
    if (exceeded.length === 0) return next();
    next(refuse(response, secondsUntil(exceeded, at), 'password checks'));
  };
}
