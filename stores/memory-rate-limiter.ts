/**
 * @module stores/memory-rate-limiter
 * The embedded mode's rate limiter: per-key counters of the current clock minute, in process memory
 * (one process serves every request in this mode, so in-process counters are the shared state).
 */
import type { RateLimitDecision, RateLimiter, RateLimits, RateWindowState } from './ports.ts';

export const WINDOW_MS = 60_000;

interface Window {
  index: number;
  requests: number;
  tokens: number;
}

export function windowState(limit: number | null, used: number, now: number): RateWindowState | null {
  if (limit === null) return null;
  return { limit, remaining: Math.max(0, limit - used), resetMs: WINDOW_MS - (now % WINDOW_MS) };
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();

  #window(key: string, now: number): Window {
    const index = Math.floor(now / WINDOW_MS);
    let window = this.#windows.get(key);
    if (!window || window.index !== index) {
      if (this.#windows.size > 100_000) this.#sweep(index);
      window = { index, requests: 0, tokens: 0 };
      this.#windows.set(key, window);
    }
    return window;
  }

  #sweep(index: number): void {
    for (const [key, window] of this.#windows) if (window.index !== index) this.#windows.delete(key);
  }

  async acquire(key: string, limits: RateLimits, estimatedTokens: number, now: number): Promise<RateLimitDecision> {
    const window = this.#window(key, now);
    const refusedBy =
      limits.rpm !== null && window.requests >= limits.rpm
        ? 'requests'
        : limits.tpm !== null && window.tokens >= limits.tpm
          ? 'tokens'
          : null;
    if (!refusedBy) {
      window.requests++;
      window.tokens += Math.max(0, estimatedTokens);
    }
    return {
      allowed: refusedBy === null,
      refusedBy,
      requests: windowState(limits.rpm, window.requests, now),
      tokens: windowState(limits.tpm, window.tokens, now),
    };
  }

  async adjustTokens(key: string, delta: number, now: number): Promise<void> {
    const window = this.#window(key, now);
    window.tokens = Math.max(0, window.tokens + delta);
  }
}
