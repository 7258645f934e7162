/**
 * @module stores/cluster/redis-rate-limiter
 * The cluster's rate limiter: the same one-minute windows as the embedded one, as Redis counters
 * under the namespace prefix (`<prefix>ratelimit:{<key>}:<requests|tokens>:<minute>`), checked and
 * counted by one Lua script per request, so two nodes can never both take the last request of a
 * minute. When Redis does not answer the request is let through (fail open) and a warning logged:
 * a limiter outage must not become a gateway outage.
 */

import { WINDOW_MS, windowState } from '../memory-rate-limiter.ts';
import type { RateLimitDecision, RateLimiter, RateLimits } from '../ports.ts';
import type { Redis } from './redis-keys.ts';
import { bounded } from './redis-timeout.ts';

/** KEYS: requests counter, tokens counter. ARGV: rpm (0 = none), tpm (0 = none), estimate, ttl ms. */
const ACQUIRE = `
local rpm = tonumber(ARGV[1])
local tpm = tonumber(ARGV[2])
local estimate = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local requests = tonumber(redis.call('GET', KEYS[1]) or '0')
local tokens = tonumber(redis.call('GET', KEYS[2]) or '0')
if rpm > 0 and requests >= rpm then return {0, requests, tokens, 1} end
if tpm > 0 and tokens >= tpm then return {0, requests, tokens, 2} end
requests = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ttl)
if estimate > 0 then
  tokens = redis.call('INCRBY', KEYS[2], estimate)
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return {1, requests, tokens, 0}
`;

/** KEYS: tokens counter. ARGV: delta, ttl ms. Never below zero. */
const ADJUST = `
local tokens = redis.call('INCRBY', KEYS[1], ARGV[1])
if tokens < 0 then redis.call('SET', KEYS[1], 0) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return tokens
`;

export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #warn: (message: string, extra?: Record<string, unknown>) => void;
  #lastWarning = 0;

  constructor(redis: Redis, prefix: string, warn: (message: string, extra?: Record<string, unknown>) => void) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#warn = warn;
  }

  #keys(key: string, now: number): [string, string] {
    const minute = Math.floor(now / WINDOW_MS);
    // The hash tag keeps both counters of a key in one slot (Lua needs that on Redis Cluster).
    const base = `${this.#prefix}ratelimit:{${key}}`;
    return [`${base}:requests:${minute}`, `${base}:tokens:${minute}`];
  }

  #failOpen(error: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarning < 10_000) return;
    this.#lastWarning = now;
    this.#warn('rate limiter: Redis did not answer; requests are let through unlimited until it does', {
      error: String(error),
    });
  }

  async acquire(key: string, limits: RateLimits, estimatedTokens: number, now: number): Promise<RateLimitDecision> {
    const ttl = WINDOW_MS - (now % WINDOW_MS) + 5_000;
    let reply: number[];
    try {
      reply = (await bounded(
        this.#redis.eval(ACQUIRE, {
          keys: this.#keys(key, now),
          arguments: [
            String(limits.rpm ?? 0),
            String(limits.tpm ?? 0),
            String(Math.max(0, Math.round(estimatedTokens))),
            String(ttl),
          ],
        }),
      )) as number[];
    } catch (error) {
      this.#failOpen(error);
      return { allowed: true, refusedBy: null, requests: null, tokens: null };
    }
    const [allowed, requests = 0, tokens = 0, refused] = reply.map(Number);
    return {
      allowed: allowed === 1,
      refusedBy: refused === 1 ? 'requests' : refused === 2 ? 'tokens' : null,
      requests: windowState(limits.rpm, requests, now),
      tokens: windowState(limits.tpm, tokens, now),
    };
  }

  async adjustTokens(key: string, delta: number, now: number): Promise<void> {
    if (delta === 0) return;
    try {
      await bounded(
        this.#redis.eval(ADJUST, {
          keys: [this.#keys(key, now)[1]],
          arguments: [String(Math.round(delta)), String(WINDOW_MS - (now % WINDOW_MS) + 5_000)],
        }),
      );
    } catch (error) {
      this.#failOpen(error);
    }
  }
}
