/**
 * @module gateway/security/compaction-seal
 * The conversation summary a converted channel's compaction writes is given to the client sealed,
 * as the `encrypted_content` of a `compaction` item: AES-256-GCM under a key derived from the server
 * secret, bound to the account it was made for (additional data), so that the client holds an
 * opaque token as it does from OpenAI, and neither it nor another account can forge or read one.
 * Every node with the same GATEWAY_SECRET opens it: nothing is stored. Format: `gwc1.` then
 * iv, tag and ciphertext, base64url, dot-separated; the prefix tells the gateway's items from
 * OpenAI's, which are opaque to the gateway.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'gwc1.';

export function isGatewaySeal(encrypted: string): boolean {
  return encrypted.startsWith(PREFIX);
}

export function sealSummary(summary: string, key: Buffer, userId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(userId, 'utf8'));
  const data = Buffer.concat([cipher.update(summary, 'utf8'), cipher.final()]);
  return PREFIX + [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

/** The summary, or null for a token that is not the gateway's, was altered, or was sealed for another account or secret. */
export function openSummary(sealed: string, key: Buffer, userId: string): string | null {
  if (!isGatewaySeal(sealed)) return null;
  const [iv, tag, data] = sealed.slice(PREFIX.length).split('.');
  if (!iv || !tag || data === undefined) return null;
  const authTag = Buffer.from(tag, 'base64url');
  const nonce = Buffer.from(iv, 'base64url');
  if (authTag.length !== 16 || nonce.length !== 12) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
    decipher.setAAD(Buffer.from(userId, 'utf8'));
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
