/**
 * @module gateway/relay/circuit-breaker
 * One breaker per channel, per gateway node: after `failureThreshold` consecutive failures (unreachable,
 * timeout, 429, 5xx) the channel is open and skipped while another channel can serve; after `openMs`
 * one request is let through as a probe (half-open): success closes it, failure opens it again.
 * A threshold of 0 disables the breakers.
 */

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface ChannelHealth {
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: number | null;
}

export interface CircuitBreakerOptions {
  failureThreshold: number;
  openMs: number;
  onChange?: (channelId: string, state: BreakerState) => void;
}

interface Breaker {
  failures: number;
  openedAt: number | null;
  probing: boolean;
}

export class CircuitBreakers {
  readonly #options: CircuitBreakerOptions;
  readonly #breakers = new Map<string, Breaker>();

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  #breaker(channelId: string): Breaker {
    let breaker = this.#breakers.get(channelId);
    if (!breaker) {
      breaker = { failures: 0, openedAt: null, probing: false };
      this.#breakers.set(channelId, breaker);
    }
    return breaker;
  }

  health(channelId: string, now = Date.now()): ChannelHealth {
    const breaker = this.#breakers.get(channelId);
    if (!breaker) return { state: 'closed', consecutiveFailures: 0, openedAt: null };
    return { state: this.#state(breaker, now), consecutiveFailures: breaker.failures, openedAt: breaker.openedAt };
  }

  #state(breaker: Breaker, now: number): BreakerState {
    if (breaker.openedAt === null) return 'closed';
    return breaker.probing || now - breaker.openedAt >= this.#options.openMs ? 'half_open' : 'open';
  }

  /** Whether a request may go to the channel now; taking the half-open probe slot when it is free. */
  tryAcquire(channelId: string, now = Date.now()): boolean {
    const breaker = this.#breakers.get(channelId);
    if (!breaker || breaker.openedAt === null) return true;
    if (breaker.probing || now - breaker.openedAt < this.#options.openMs) return false;
    breaker.probing = true;
    this.#options.onChange?.(channelId, 'half_open');
    return true;
  }

  /** Would `tryAcquire` let a request through (without taking the probe)? */
  isAvailable(channelId: string, now = Date.now()): boolean {
    const breaker = this.#breakers.get(channelId);
    if (!breaker || breaker.openedAt === null) return true;
    return !breaker.probing && now - breaker.openedAt >= this.#options.openMs;
  }

  onSuccess(channelId: string): void {
    const breaker = this.#breakers.get(channelId);
    if (!breaker) return;
    const wasOpen = breaker.openedAt !== null;
    breaker.failures = 0;
    breaker.openedAt = null;
    breaker.probing = false;
    if (wasOpen) this.#options.onChange?.(channelId, 'closed');
  }

  onFailure(channelId: string, now = Date.now()): void {
    if (this.#options.failureThreshold <= 0) return;
    const breaker = this.#breaker(channelId);
    breaker.failures++;
    if (breaker.probing || (breaker.openedAt === null && breaker.failures >= this.#options.failureThreshold)) {
      breaker.openedAt = now;
      breaker.probing = false;
      this.#options.onChange?.(channelId, 'open');
    }
  }

  /** Forgets every breaker (all closed). */
  reset(): void {
    this.#breakers.clear();
  }

  /** A request that took the probe slot but ended without verdict (e.g. the client left). */
  release(channelId: string): void {
    const breaker = this.#breakers.get(channelId);
    if (breaker) breaker.probing = false;
  }
}
