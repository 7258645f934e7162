/**
 * @module gateway/console-api/security-headers
 * Response headers that keep the console's pages from being framed, sniffed or fed foreign scripts.
 * The policy fits a Vite build: scripts and styles come from this origin only (inline styles are
 * allowed for the attributes the charts set), and the app talks only to its own `/api`.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export interface SecurityHeadersOptions {
  contentSecurityPolicy?: string;
}

export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders({
  contentSecurityPolicy = CONSOLE_CONTENT_SECURITY_POLICY,
}: SecurityHeadersOptions = {}): RequestHandler {
  return function setSecurityHeaders(_request: Request, response: Response, next: NextFunction) {
    response.setHeader('content-security-policy', contentSecurityPolicy);
    response.setHeader('x-content-type-options', 'nosniff');
    response.setHeader('referrer-policy', 'same-origin');
    response.setHeader('x-frame-options', 'DENY');
    next();
  };
}
