/**
 * @module gateway/security/url-guard
 * Server-side request forgery guard for the URLs the gateway itself fetches when an administrator
 * configures them in the console (channel base URLs, and the channel test). The host is resolved and
 * every address it resolves to must be public: loopback, private (RFC 1918), carrier-grade NAT,
 * link-local (cloud metadata at 169.254.169.254), unique-local IPv6, multicast, reserved and
 * unspecified addresses are refused, as is every IPv6 address that embeds one of them (IPv4-mapped and
 * -translated, NAT64, 6to4, Teredo), unless `ALLOW_PRIVATE_UPSTREAMS=true` (an operator running models
 * on the local network).
 * Channels from the operator's config file are not checked: the operator owns that file.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (with any dotted IPv4 tail converted). */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...(tail !== undefined ? Array(missing).fill('0') : []), ...tailGroups];
  return groups.map((group) => Number.parseInt(group || '0', 16));
}

/** The 16 bytes of an IPv6 address, from its eight groups. */
function bytesOf(groups: readonly number[]): number[] {
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

function dotted(bytes: readonly number[], xor = 0): string {
  return bytes.map((byte) => (byte ^ xor) & 0xff).join('.');
}

/**
 * Local-use NAT64 (64:ff9b:1::/48, RFC 8215) places the IPv4 address by the operator's prefix length
 * (RFC 6052: /48, /56, /64 or /96), which the address does not say. Every layout whose reserved bits
 * (bits 64-71, and the suffix after the IPv4 address) are zero is a possible reading, and all of them
 * must be public. An all-zero reading is the padding of a shorter layout, not a destination; when no
 * reading is left the address translates to nothing, and the sentinel 0.0.0.0 (refused) stands for it.
 */
function localNat64Readings(bytes: readonly number[]): string[] {
  if (bytes[8] !== 0) return ['0.0.0.0'];
  const zero = (from: number) => bytes.slice(from).every((byte) => byte === 0);
  const layouts: Array<[number[], number]> = [
    [[6, 7, 9, 10], 11],
    [[7, 9, 10, 11], 12],
    [[9, 10, 11, 12], 13],
    [[12, 13, 14, 15], 16],
  ];
  const readings = layouts
    .filter(([, suffix]) => zero(suffix))
    .map(([at]) => dotted(at.map((index) => bytes[index]!)))
    .filter((reading) => reading !== '0.0.0.0');
  return readings.length > 0 ? readings : ['0.0.0.0'];
}

/**
 * The IPv4 addresses an IPv6 address reaches through a translation or tunnel range (RFC 6890's
 * special-purpose ranges that embed one): a host answering on such an address is, in effect, the
 * embedded IPv4 host, so those are what get judged. Null when the address embeds none.
 */
function embeddedIpv4(groups: readonly number[]): string[] | null {
  const bytes = bytesOf(groups);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const tail = dotted(bytes.slice(12));
  // IPv4-mapped ::ffff:a.b.c.d, and IPv4-translated ::ffff:0:a.b.c.d (RFC 2765, SIIT)
  if (zeros(0, 5) && groups[5] === 0xffff) return [tail];
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return [tail];
  // well-known NAT64 64:ff9b::/96 (RFC 6052), local-use NAT64 64:ff9b:1::/48 (RFC 8215)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return [tail];
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return localNat64Readings(bytes);
  // 6to4 2002:a.b.c.d::/48 (RFC 3056): the relay forwards to the embedded address
  if (groups[0] === 0x2002) return [dotted(bytes.slice(2, 6))];
  // Teredo 2001:0::/32 (RFC 4380): the server's address, and the client's, stored inverted
  if (groups[0] === 0x2001 && groups[1] === 0) return [dotted(bytes.slice(4, 8)), dotted(bytes.slice(12), 0xff)];
  return null;
}

/** Whether an IP address is one the gateway must not be pointed at (not a public unicast address). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse
  const groups = ipv6Groups(address);
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group))) return true;
  const embedded = embeddedIpv4(groups);
  if (embedded) return embedded.some((ipv4) => blocked.check(ipv4, 'ipv4'));
  // IPv4-compatible (::a.b.c.d, deprecated), `::` and `::1`: never a public upstream.
  if (groups.slice(0, 6).every((group) => group === 0)) return true;
  return blocked.check(address, 'ipv6');
}

export class BlockedUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedUrlError';
  }
}

export interface UrlGuardOptions {
  allowPrivate: boolean;
  /** resolves a host name to all its addresses (tests inject their own) */
  resolve?: (host: string) => Promise<string[]>;
}

async function resolveAll(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

/**
 * Refuses (throws `BlockedUrlError`) a URL that is not http(s), or whose host is or resolves to a
 * non-public address. Every address of the host must be public: one private answer is enough to refuse.
 */
export async function assertPublicUrl(
  url: string,
  { allowPrivate, resolve = resolveAll }: UrlGuardOptions,
): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BlockedUrlError(`"${url}" is not an absolute URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new BlockedUrlError(`Only http and https URLs are allowed, got ${parsed.protocol}`);
  if (allowPrivate) return;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new BlockedUrlError(
        `The host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      );
    }
  }
  if (addresses.length === 0) throw new BlockedUrlError(`The host ${host} does not resolve.`);
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined) {
    const what = isIP(host) ? `${host} is` : `${host} resolves to ${refused},`;
    throw new BlockedUrlError(
      `${what} a private, loopback or link-local address; the gateway does not call such addresses unless ` +
        'ALLOW_PRIVATE_UPSTREAMS=true.',
    );
  }
}
