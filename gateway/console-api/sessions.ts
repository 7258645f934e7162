/**
 * @module gateway/console-api/sessions
 * Console sessions are stateless signed cookies (`userId.expiry.fingerprint.signature`, HMAC-SHA256
 * under a key derived from the server secret), so any gateway node can check them without a shared
 * store. The fingerprint is derived from the password hash: changing the password ends every session
 * issued before. The cookie is httpOnly and SameSite=Lax, and Secure when served over TLS.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'gateway_session';
export const SESSION_LIFETIME_MS = 7 * 24 * 3_600_000;

function sign(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** A short keyed digest of the password hash: sessions carry it and stop matching once it changes. */
export function passwordFingerprint(passwordHash: string, key: Buffer): string {
  return createHmac('sha256', key).update(`password:${passwordHash}`).digest('base64url').slice(0, 16);
}

export function createSessionValue(userId: string, fingerprint: string, key: Buffer, now: number): string {
  const payload = `${userId}.${now + SESSION_LIFETIME_MS}.${fingerprint}`;
  return `${payload}.${sign(payload, key)}`;
}

export interface SessionClaims {
  userId: string;
  fingerprint: string;
}

/** The claims of a valid, unexpired session; null otherwise. */
export function readSessionValue(value: string | undefined, key: Buffer, now: number): SessionClaims | null {
  if (!value) return null;
  const last = value.lastIndexOf('.');
  const payload = value.slice(0, last);
  const signature = Buffer.from(value.slice(last + 1));
  const expected = Buffer.from(sign(payload, key));
  if (last < 0 || signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
  const [userId, expiry, fingerprint] = payload.split('.');
  if (!userId || !fingerprint || !(Number(expiry) > now)) return null;
  return { userId, fingerprint };
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      // A malformed escape (`%`, `%E0%A4%A`) is a forged cookie, not a server error: no session.
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function setSessionCookie(response: Response, value: string, secure: boolean): void {
  response.cookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: SESSION_LIFETIME_MS,
  });
}

export function clearSessionCookie(response: Response, secure: boolean): void {
  response.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
