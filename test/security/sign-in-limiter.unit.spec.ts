/**
 * The sign-in limiter's rules on their own, with a controlled clock: pair first, the per-email limit
 * only for addresses that have not signed in to the account, and the client address as counted
 * (TRUST_PROXY, IPv6 by /64).
 */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { clientOf, SignInLimiter } from '../../gateway/console-api/auth-rate-limit.ts';

const settings = { attempts: 3, addressAttempts: 100, emailAttempts: 5, windowMs: 60_000 };

function limiter() {
  let now = 1_000_000;
  const instance = new SignInLimiter(settings, () => now);
  return { instance, advance: (ms: number) => (now += ms) };
}

const attempts = (instance: SignInLimiter, client: string, email: string, count: number) =>
  Array.from({ length: count }, () => instance.attempt(client, email));

describe('SignInLimiter', () => {
  it('limits the (email, address) pair, not the email: another address still gets through', () => {
    const { instance } = limiter();
    expect(attempts(instance, '10.0.0.1', 'owner@example.com', 5)).toEqual([null, null, null, 60, 60]);
    expect(instance.attempt('10.0.0.2', 'owner@example.com')).toBeNull();
  });

  it('does not count attempts the pair limit refused toward the per-email limit', () => {
    const { instance } = limiter();
    attempts(instance, '10.0.0.1', 'owner@example.com', 50);
    // 3 counted from .1; two more addresses may try once each before the email's 5 are used.
    expect(attempts(instance, '10.0.0.2', 'owner@example.com', 1)).toEqual([null]);
    expect(attempts(instance, '10.0.0.3', 'owner@example.com', 2)).toEqual([null, 60]);
  });

  it('holds new addresses to the per-email limit, never an address that signed in to the account', () => {
    const { instance, advance } = limiter();
    instance.succeeded('10.0.0.9', 'Owner@Example.com ');
    for (const host of [1, 2]) attempts(instance, `10.0.0.${host}`, 'owner@example.com', 3);
    expect(instance.attempt('10.0.0.7', 'owner@example.com')).toBe(60);
    expect(instance.attempt('10.0.0.9', 'owner@example.com')).toBeNull();
    advance(60_000);
    expect(instance.attempt('10.0.0.7', 'owner@example.com')).toBeNull();
  });

  it('limits one address across every email', () => {
    const instance = new SignInLimiter({ ...settings, addressAttempts: 2 }, () => 0);
    const answers = ['a', 'b', 'c'].map((name) => instance.attempt('10.0.0.1', `${name}@example.com`));
    expect(answers).toEqual([null, null, 60]);
    expect(instance.attempt('10.0.0.2', 'c@example.com')).toBeNull();
  });
});

describe('clientOf', () => {
  const request = (remoteAddress: string, forwarded?: string) =>
    ({ socket: { remoteAddress }, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} }) as unknown as Request;

  it('counts an IPv6 client by its /64, an IPv4-mapped one as IPv4', () => {
    expect(clientOf(request('2001:db8:1:2:aaaa::1'), 0)).toBe('2001:db8:1:2::/64');
    expect(clientOf(request('2001:db8:1:2:ffff:ffff:ffff:ffff'), 0)).toBe('2001:db8:1:2::/64');
    expect(clientOf(request('::ffff:192.0.2.7'), 0)).toBe('192.0.2.7');
  });

  it('takes the address the trusted proxy saw with TRUST_PROXY, and ignores the header without it', () => {
    expect(clientOf(request('10.0.0.1', '198.51.100.4, 203.0.113.9'), 1)).toBe('203.0.113.9');
    expect(clientOf(request('10.0.0.1', '198.51.100.4, 203.0.113.9'), 0)).toBe('10.0.0.1');
  });
});
