/**
 * @module gateway/console-api/sessions
 * Console sessions are signed cookies (`userId.sessionId.expiry.fingerprint.signature`, HMAC-SHA256
 * under a key derived from the server secret), so any gateway node can check them without asking a
 * shared store. They end server-side in two ways, both read from the account document every console
 * request looks up anyway: the fingerprint is derived from the password hash, so changing the password
 * ends every session issued before; signing out publishes `session.ended` with the session's random id,
 * which the account document lists until the session would have expired. The cookie is httpOnly and
 * SameSite=Lax, and Secure when served over TLS.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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

/** A new session's cookie value, with a fresh random session id. */
export function createSessionValue(userId: string, fingerprint: string, key: Buffer, now: number): string {
  const sessionId = randomBytes(12).toString('base64url');
  const payload = `${userId}.${sessionId}.${now + SESSION_LIFETIME_MS}.${fingerprint}`;
  return `${payload}.${sign(payload, key)}`;
}

export interface SessionClaims {
  userId: string;
  sessionId: string;
  /** ms since the epoch */
  expiresAt: number;
  fingerprint: string;
}

/**
 * The claims of a validly signed, unexpired session; null otherwise. Cookies issued before sessions had
 * an id (three fields) are no session: their holders sign in again, once.
 */
export function readSessionValue(value: string | undefined, key: Buffer, now: number): SessionClaims | null {
  if (!value) return null;
  const last = value.lastIndexOf('.');
  const payload = value.slice(0, last);
  const signature = Buffer.from(value.slice(last + 1));
  const expected = Buffer.from(sign(payload, key));
  if (last < 0 || signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
  const [userId, sessionId, expiry, fingerprint, extra] = payload.split('.');
  const expiresAt = Number(expiry);
  if (!userId || !sessionId || !fingerprint || extra !== undefined || !(expiresAt > now)) return null;
  return { userId, sessionId, expiresAt, fingerprint };
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
