/**
 * The key a client's sockets are counted under: one per IPv4 address, one per IPv6 /64, whatever the
 * spelling of the address.
 */
import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './connection-limits.ts';

describe('clientAddressKey', () => {
  it('keeps an IPv4 address, also when the socket reports it IPv4-mapped', () => {
    expect(clientAddressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddressKey('::FFFF:203.0.113.9')).toBe('203.0.113.9');
  });

  it('counts an IPv6 address under its /64, however it is written', () => {
    const key = '2001:db8:0:1::/64';
    expect(clientAddressKey('2001:db8:0:1::1')).toBe(key);
    expect(clientAddressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe(key);
    expect(clientAddressKey('2001:DB8::1:0:0:0:2')).toBe(key);
    expect(clientAddressKey('2001:db8:0:1:0:0:198.51.100.1')).toBe(key);
    expect(clientAddressKey('2001:db8:0:2::1')).not.toBe(key);
  });

  it('handles loopback, a zone and the short forms', () => {
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressKey('64:ff9b::198.51.100.1')).toBe('64:ff9b:0:0::/64');
  });
});
