/**
 * @module gateway/security/ip-allowlist
 * A key's IP allowlist as a node:net BlockList (IPv4 and IPv6, single addresses and CIDR ranges), and
 * the client address of a request: the socket's, or with `TRUST_PROXY` set to N hops, the address N
 * entries from the right of X-Forwarded-For (the one the outermost trusted proxy saw).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export interface AddressRule {
  address: string;
  prefix: number | null;
  family: 'ipv4' | 'ipv6';
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address; null when it is neither. */
export function parseAddressRule(text: string): AddressRule | null {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, prefix: null, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return null;
  return { address, prefix, family };
}

/** The entries that are not valid addresses or ranges (for a 400 naming them). */
export function invalidAddressRules(entries: readonly string[]): string[] {
  return entries.filter((entry) => parseAddressRule(entry) === null);
}

const cache = new WeakMap<readonly string[], BlockList>();

/** Built once per allowlist array (documents are replaced, never mutated, so the array is the cache key). */
export function allowlistOf(entries: readonly string[]): BlockList {
  let list = cache.get(entries);
  if (list) return list;
  list = new BlockList();
  for (const entry of entries) {
    const rule = parseAddressRule(entry);
    if (!rule) continue;
    if (rule.prefix === null) list.addAddress(rule.address, rule.family);
    else list.addSubnet(rule.address, rule.prefix, rule.family);
  }
  cache.set(entries, list);
  return list;
}

/** `::ffff:10.1.2.3` (an IPv4 client on a dual-stack socket) is checked as `10.1.2.3`. */
export function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export function isAllowed(entries: readonly string[], clientAddress: string): boolean {
  const address = normalizeAddress(clientAddress);
  const version = isIP(address);
  if (version === 0) return false;
  return allowlistOf(entries).check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address. `trustProxyHops` 0 ignores X-Forwarded-For (a client could write anything
 * there); N > 0 trusts the last N hops: with one proxy, the right-most entry is what it saw.
 */
export function clientAddressOf(request: IncomingMessage, trustProxyHops: number): string {
  const socketAddress = request.socket.remoteAddress ?? '';
  if (trustProxyHops <= 0) return normalizeAddress(socketAddress);
  const header = request.headers['x-forwarded-for'];
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return normalizeAddress(socketAddress);
  const hops = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chosen = hops[Math.max(0, hops.length - trustProxyHops)];
  return normalizeAddress(chosen && isIP(chosen) ? chosen : socketAddress);
}
