/**
 * @module gateway/console-api/same-origin
 * Cross-site request refusal: a state-changing console call must name this site, scheme, host and
 * port, in `Origin` (or, when a browser sent none, in `Referer`). The site is the configured public
 * origin (`PUBLIC_URL`) when there is one; otherwise the origin the request was sent to, as the
 * client saw it: its `Host`, over https when the connection is TLS, the gateway is served over TLS
 * (`SECURE_COOKIES`) or a trusted proxy (`TRUST_PROXY`) says so in `X-Forwarded-Proto`.
 *
 * `Origin: null` is refused outright: browsers send it from sandboxed frames, `data:` and `file:`
 * pages and after cross-site redirects, none of which is the console, and a `Referer` beside it is
 * not the request's origin.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { originOf } from '../security/origin.ts';
import { ApiError } from './api-error.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SameOriginOptions {
  /** the site's origin as browsers reach it (`PUBLIC_URL`); unset: each request's own */
  publicOrigin?: string | undefined;
  /** reverse-proxy hops whose `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (`TRUST_PROXY`) */
  trustProxyHops?: number;
  /** the site is served over TLS (`SECURE_COOKIES`), whatever the connection to this process is */
  secure?: boolean;
}

/** A forwarded header's value set by the proxy `hops` from here: proxies append theirs on the right. */
function forwarded(request: IncomingMessage, name: string, hops: number): string | undefined {
  const header = request.headers[name];
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return undefined;
  const values = text
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  return values[Math.max(0, values.length - hops)];
}

/** The origin the client sent this request to, or null when its host cannot be read. */
export function requestOrigin(request: IncomingMessage, options: SameOriginOptions): string | null {
  const hops = options.trustProxyHops ?? 0;
  const proxied = hops > 0 ? forwarded(request, 'x-forwarded-proto', hops)?.toLowerCase() : undefined;
  const tls = (request.socket as Partial<TLSSocket>).encrypted === true;
  const scheme = proxied === 'https' || proxied === 'http' ? proxied : tls || options.secure ? 'https' : 'http';
  const host = (hops > 0 ? forwarded(request, 'x-forwarded-host', hops) : undefined) ?? request.headers.host;
  if (!host) return null;
  return originOf(`${scheme}://${host}`);
}

function refusal(claimed: string | null, site: string | null, configured: boolean): ApiError {
  if (!claimed) {
    return new ApiError(
      403,
      'cross_site_request',
      'State-changing requests must carry an Origin header naming this site, scheme, host and port (browsers do; scripts should send it).',
    );
  }
  // The site is what the request itself or the configuration says: nothing another client could not see.
  const hint = configured ? '' : '; behind a proxy, set PUBLIC_URL to the address browsers use';
  const expected = site ? ` (this site is ${site}${hint})` : '';
  return new ApiError(403, 'cross_site_request', `Requests from ${claimed} may not change anything here${expected}.`);
}

export function sameOriginGuard(options: SameOriginOptions = {}): RequestHandler {
  const configured = options.publicOrigin ? originOf(options.publicOrigin) : null;
  return function sameOrigin(request: Request, _response: Response, next: NextFunction) {
    if (SAFE_METHODS.has(request.method)) return next();
    const { origin, referer } = request.headers;
    const site = configured ?? requestOrigin(request, options);
    if (origin?.trim().toLowerCase() === 'null')
      return next(refusal('an opaque origin (Origin: null)', site, configured !== null));
    const claimed = origin ? originOf(origin) : originOf(referer);
    if (claimed && site && claimed === site) return next();
    next(refusal(claimed ?? (origin ? origin.slice(0, 100) : null), site, configured !== null));
  };
}
