/**
 * @module gateway/security/api-keys
 * API keys: `sk-` and 48 base62 characters (about 285 bits), stored only as an HMAC-SHA256 hash under
 * the server secret, with a display hint. Lookups go by hash, so comparing the secret itself never
 * happens; the hash comparison is a map lookup on a keyed digest, which leaks nothing usable.
 */
import { createHmac, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX = 'sk-';
const KEY_BODY_LENGTH = 48;

/** Uniform base62 by rejection sampling: bytes ≥ 248 would bias the first 8 characters. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

export function hashApiKey(key: string, hashingKey: Buffer): string {
  return createHmac('sha256', hashingKey).update(key).digest('base64url');
}

const HASH_CACHE_SIZE = 10_000;
const hashCache = new Map<string, { hashingKey: Buffer; hash: string }>();

/**
 * `hashApiKey` for the relay's hot path: the same few keys come again and again, and an HMAC per
 * request is a measurable share of it. Bounded (emptied when full, so a flood of made-up keys cannot
 * grow it); the keys it holds are already in this process's memory with every request that sends them.
 */
export function cachedApiKeyHash(key: string, hashingKey: Buffer): string {
  const cached = hashCache.get(key);
  if (cached && cached.hashingKey === hashingKey) return cached.hash;
  const hash = hashApiKey(key, hashingKey);
  if (hashCache.size >= HASH_CACHE_SIZE) hashCache.clear();
  hashCache.set(key, { hashingKey, hash });
  return hash;
}

/** `sk-abcd…wxyz`: enough to recognise a key, never enough to use it. */
export function hintOf(key: string): string {
  return `${key.slice(0, 7)}…${key.slice(-4)}`;
}
