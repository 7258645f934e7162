/**
 * @module gateway/console-api/sso-flow-cookie
 * What a single sign-on must remember between sending the browser to the provider and its return:
 * the state, the nonce, the PKCE verifier and where to land. It travels in the browser's own cookie,
 * sealed (AES-256-GCM under a key derived from the server secret), so any gateway node can finish a
 * sign-in another started, and neither the browser nor anyone else can read or forge it. It lives ten
 * minutes, on the callback's path only, and is cleared when the callback reads it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { readCookie } from './sessions.ts';

export const SSO_FLOW_COOKIE = 'gateway_sso_flow';
const COOKIE_PATH = '/api/auth/sso';
const FLOW_LIFETIME_MS = 10 * 60_000;

export interface SsoFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** the console path to land on once signed in */
  redirect: string;
  /** ms since the epoch */
  expiresAt: number;
}

export function newFlowExpiry(now: number): number {
  return now + FLOW_LIFETIME_MS;
}

function seal(flow: SsoFlow, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(flow), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

function open(sealed: string, key: Buffer): SsoFlow | null {
  const [iv, tag, data] = sealed.split('.');
  if (!iv || !tag || data === undefined) return null;
  const nonce = Buffer.from(iv, 'base64url');
  const authTag = Buffer.from(tag, 'base64url');
  if (nonce.length !== 12 || authTag.length !== 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
    decipher.setAuthTag(authTag);
    const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(text) as SsoFlow;
  } catch {
    return null;
  }
}

export function setFlowCookie(response: Response, flow: SsoFlow, key: Buffer, secure: boolean): void {
  // SameSite=Lax: the provider's redirect back is a top-level GET navigation, which Lax cookies go with.
  response.cookie(SSO_FLOW_COOKIE, seal(flow, key), {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: COOKIE_PATH,
    maxAge: FLOW_LIFETIME_MS,
  });
}

/** The flow this browser started, unexpired and unaltered; null otherwise. Clears the cookie either way. */
export function takeFlowCookie(request: Request, response: Response, key: Buffer, secure: boolean): SsoFlow | null {
  const value = readCookie(request, SSO_FLOW_COOKIE);
  response.clearCookie(SSO_FLOW_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: COOKIE_PATH });
  const flow = value ? open(value, key) : null;
  return flow && flow.expiresAt > Date.now() ? flow : null;
}
