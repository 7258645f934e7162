/**
 * @module gateway/security/public-lookup
 * The address guard at connect time. A channel entered in the console is checked when it is saved
 * (url-guard.ts), but a host name can be re-pointed afterwards (DNS rebinding, a record changed on
 * purpose) at a loopback, private or metadata address. The relay's connections to such channels
 * resolve through this lookup, which refuses any answer the save-time guard would refuse, so the
 * address checked is the address connected to.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPrivateAddress } from './url-guard.ts';

/** The error's `code`, which the relay turns into `upstream_address_refused`. */
export const PRIVATE_ADDRESS_CODE = 'ERR_UPSTREAM_ADDRESS_PRIVATE';

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private, loopback or link-local address.`);
  }
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (host: string, options: LookupOptions, callback: LookupCallback) => void;

/** A `lookup` for `net.connect` (through undici's `connect` options) that refuses non-public answers. */
export function publicOnlyLookup(resolve: LookupFunction = dnsLookup as LookupFunction): LookupFunction {
  return (host, options, callback) => {
    resolve(host, { ...options, all: true }, (error, answers) => {
      if (error) return callback(error, []);
      const all = answers as LookupAddress[];
      const refused = all.find((answer) => isPrivateAddress(answer.address));
      if (refused) return callback(new PrivateAddressError(host, refused.address), []);
      if (options.all) return callback(null, all);
      const first = all[0];
      if (!first) return callback(Object.assign(new Error(`${host} did not resolve`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** An IP literal is connected to without a lookup: checked here instead. */
export function refusePrivateLiteral(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isPrivateAddress(host)) throw new PrivateAddressError(host, host);
}
