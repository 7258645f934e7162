/**
 * @module gateway/security/upstream-key-cipher
 * Upstream provider keys are encrypted with AES-256-GCM before they enter any event or projection,
 * and decrypted only in memory to call the provider. Format: `v1.iv.tag.ciphertext`, base64url.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function encryptSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function decryptSecret(encoded: string, key: Buffer): string {
  const [version, iv, tag, data] = encoded.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Unreadable encrypted secret.');
  const authTag = Buffer.from(tag, 'base64url');
  // A full 16-byte tag only: a shortened tag would make forgeries 2^96 times easier.
  if (authTag.length !== 16) throw new Error('Unreadable encrypted secret.');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  decipher.setAuthTag(authTag);
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
