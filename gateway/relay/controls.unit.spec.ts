/**
 * The pure parts of the production controls: address rules and client addresses, the circuit
 * breaker's states, and the in-process rate limiter's windows.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../stores/memory-rate-limiter.ts';
import { clientAddressOf, invalidAddressRules, isAllowed } from '../security/ip-allowlist.ts';
import { CircuitBreakers } from './circuit-breaker.ts';

function requestFrom(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  } as unknown as IncomingMessage;
}

describe('IP allowlists', () => {
  it('matches IPv4 and IPv6 addresses and ranges, and IPv4-mapped IPv6 clients', () => {
    const list = ['10.0.0.0/8', '203.0.113.7', '2001:db8::/32'];
    expect(isAllowed(list, '10.1.2.3')).toBe(true);
    expect(isAllowed(list, '::ffff:10.1.2.3')).toBe(true);
    expect(isAllowed(list, '203.0.113.7')).toBe(true);
    expect(isAllowed(list, '203.0.113.8')).toBe(false);
    expect(isAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(isAllowed(list, '2001:db9::1')).toBe(false);
    expect(isAllowed(list, '')).toBe(false);
  });

  it('names the entries that are neither an address nor a range', () => {
    expect(invalidAddressRules(['10.0.0.0/8', '10.0.0.0/33', '::1/129', 'example.com', '1.2.3.4/x', '::1'])).toEqual([
      '10.0.0.0/33',
      '::1/129',
      'example.com',
      '1.2.3.4/x',
    ]);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the hops to trust', () => {
    expect(clientAddressOf(requestFrom('10.0.0.1', '198.51.100.1'), 0)).toBe('10.0.0.1');
    expect(clientAddressOf(requestFrom('10.0.0.1', '1.1.1.1, 198.51.100.1'), 1)).toBe('198.51.100.1');
    expect(clientAddressOf(requestFrom('10.0.0.1', '198.51.100.1, 10.0.0.9'), 2)).toBe('198.51.100.1');
    expect(clientAddressOf(requestFrom('10.0.0.1', 'not-an-ip'), 1)).toBe('10.0.0.1');
    expect(clientAddressOf(requestFrom('::ffff:127.0.0.1'), 0)).toBe('127.0.0.1');
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, lets one probe through after the open period, closes on success', () => {
    const breakers = new CircuitBreakers({ failureThreshold: 3, openMs: 1_000 });
    breakers.onFailure('a', 0);
    breakers.onFailure('a', 0);
    breakers.onSuccess('a');
    breakers.onFailure('a', 0);
    breakers.onFailure('a', 0);
    expect(breakers.health('a', 0).state).toBe('closed');
    breakers.onFailure('a', 100);
    expect(breakers.health('a', 100)).toEqual({ state: 'open', consecutiveFailures: 3, openedAt: 100 });
    expect(breakers.tryAcquire('a', 500)).toBe(false);
    expect(breakers.health('a', 1_100).state).toBe('half_open');
    expect(breakers.tryAcquire('a', 1_100)).toBe(true);
    expect(breakers.tryAcquire('a', 1_100)).toBe(false); // one probe at a time
    breakers.onSuccess('a');
    expect(breakers.health('a', 1_200)).toEqual({ state: 'closed', consecutiveFailures: 0, openedAt: null });
  });

  it('opens again when the probe fails; a threshold of 0 disables it', () => {
    const breakers = new CircuitBreakers({ failureThreshold: 1, openMs: 10 });
    breakers.onFailure('a', 0);
    expect(breakers.tryAcquire('a', 20)).toBe(true);
    breakers.onFailure('a', 20);
    expect(breakers.health('a', 25).state).toBe('open');
    const disabled = new CircuitBreakers({ failureThreshold: 0, openMs: 10 });
    for (let index = 0; index < 10; index++) disabled.onFailure('a', 0);
    expect(disabled.tryAcquire('a', 0)).toBe(true);
  });
});

describe('in-process rate limiter', () => {
  it('counts requests and tokens per clock minute and resets with the next', async () => {
    const limiter = new MemoryRateLimiter();
    const limits = { rpm: 2, tpm: 100 };
    const first = await limiter.acquire('k', limits, 10, 60_000);
    expect(first).toMatchObject({ allowed: true, requests: { limit: 2, remaining: 1, resetMs: 60_000 } });
    expect(first.tokens).toEqual({ limit: 100, remaining: 90, resetMs: 60_000 });
    await limiter.adjustTokens('k', 95, 60_500); // the reply used more than estimated
    const second = await limiter.acquire('k', limits, 10, 61_000);
    expect(second.refusedBy).toBe('tokens');
    expect(second.tokens!.remaining).toBe(0);
    const nextMinute = await limiter.acquire('k', limits, 10, 120_000);
    expect(nextMinute.allowed).toBe(true);
    await limiter.acquire('k', limits, 0, 120_001);
    const third = await limiter.acquire('k', limits, 0, 120_002);
    expect(third).toMatchObject({ allowed: false, refusedBy: 'requests' });
    expect(third.requests!.resetMs).toBe(59_998);
  });
});
