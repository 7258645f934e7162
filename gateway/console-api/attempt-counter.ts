/**
 * @module gateway/console-api/attempt-counter
 * Fixed-window attempt counters, in this process's memory, bounded in size so that a flood of made-up
 * emails or addresses cannot grow memory without end.
 */

/** Most counters kept at once. */
const MAX_COUNTERS = 100_000;

interface Counter {
  windowStart: number;
  count: number;
}

export interface Attempts {
  /** attempts in the current window, this one included */
  count: number;
  /** when the window ends (ms since the epoch) */
  resetAt: number;
}

/** One window per key, restarted once it has passed. */
export class AttemptCounter {
  readonly #counters = new Map<string, Counter>();
  readonly #windowMs: number;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  get size(): number {
    return this.#counters.size;
  }

  /** Counts one attempt. */
  hit(key: string, now: number): Attempts {
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

/**
 * The (email, address) pairs that signed in successfully, remembered for `ttlMs`: the owner's usual
 * addresses, which a stranger's failed attempts on the same email from elsewhere must not lock out.
 */
export class KnownPairs {
  readonly #seen = new Map<string, number>();
  readonly #ttlMs: number;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  remember(key: string, now: number): void {
    // Re-inserted so that the map's order is the order of last success: the oldest go first.
    this.#seen.delete(key);
    if (this.#seen.size >= MAX_COUNTERS) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(key, now);
  }

  has(key: string, now: number): boolean {
    const at = this.#seen.get(key);
    if (at === undefined) return false;
    if (now - at < this.#ttlMs) return true;
    this.#seen.delete(key);
    return false;
  }
}
