/**
 * API keys, password hashes, upstream-key encryption and the server secret: the properties the
 * design promises (no plaintext anywhere, keyed hashes, authenticated encryption, owner-only secret file).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, cachedApiKeyHash, generateApiKey, hashApiKey, hintOf } from './api-keys.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { deriveKeys, loadServerSecret } from './server-secret.ts';
import { decryptSecret, encryptSecret } from './upstream-key-cipher.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const secretA = Buffer.alloc(32, 1);
const secretB = Buffer.alloc(32, 2);

describe('generateApiKey', () => {
  const keys = Array.from({ length: 1000 }, () => generateApiKey());

  it('is sk- and at least 40 base62 characters', () => {
    expect(API_KEY_PREFIX).toBe('sk-');
    for (const key of keys) expect(key).toMatch(/^sk-[0-9A-Za-z]{40,}$/);
  });

  it('never repeats in 1000 keys', () => {
    expect(new Set(keys).size).toBe(1000);
  });

  it('uses the 62 characters about uniformly', () => {
    const counts = new Map<string, number>();
    let total = 0;
    for (const key of keys) {
      for (const character of key.slice(3)) {
        counts.set(character, (counts.get(character) ?? 0) + 1);
        total++;
      }
    }
    expect(counts.size).toBe(62);
    const expectedCount = total / 62;
    let chiSquare = 0;
    for (const character of BASE62) chiSquare += ((counts.get(character) ?? 0) - expectedCount) ** 2 / expectedCount;
    // 61 degrees of freedom: the 99.99th percentile is about 115; a `byte % 62` bias alone gives far more.
    expect(chiSquare).toBeLessThan(130);
  });

  it('does not over-represent the first 8 symbols (rejection sampling, not byte % 62)', () => {
    const body = keys.map((key) => key.slice(3)).join('');
    const low = [...body].filter((character) => BASE62.indexOf(character) < 8).length / body.length;
    // Uniform: 8/62 ≈ 12.9 % (σ ≈ 0.15 % over 48 000 characters); a modulo bias would give 15.6 %.
    expect(low).toBeGreaterThan(0.122);
    expect(low).toBeLessThan(0.136);
  });
});

describe('hashApiKey', () => {
  const key = generateApiKey();

  it('is deterministic per key and secret', () => {
    expect(hashApiKey(key, secretA)).toBe(hashApiKey(key, Buffer.from(secretA)));
  });

  it('differs across secrets and across keys', () => {
    expect(hashApiKey(key, secretA)).not.toBe(hashApiKey(key, secretB));
    expect(hashApiKey(key, secretA)).not.toBe(hashApiKey(generateApiKey(), secretA));
  });

  it('gives the same hash from its cache, per secret, however many keys pass through it', () => {
    expect(cachedApiKeyHash(key, secretA)).toBe(hashApiKey(key, secretA));
    expect(cachedApiKeyHash(key, secretA)).toBe(hashApiKey(key, secretA));
    // The cache remembers the secret it hashed under: another secret is not answered from it.
    expect(cachedApiKeyHash(key, secretB)).toBe(hashApiKey(key, secretB));
    // More keys than the cache holds: it empties itself and still answers right.
    for (let index = 0; index < 10_050; index++) cachedApiKeyHash(`sk-flood-${index}`, secretA);
    expect(cachedApiKeyHash(key, secretA)).toBe(hashApiKey(key, secretA));
  });

  it('never contains the key or its body', () => {
    const hash = hashApiKey(key, secretA);
    expect(hash).not.toContain(key);
    expect(hash).not.toContain(key.slice(3, 15));
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('hintOf', () => {
  it('shows sk-, four characters, an ellipsis and the last four', () => {
    expect(hintOf(`sk-abcd${'x'.repeat(40)}wxyz`)).toBe('sk-abcd…wxyz');
    const key = generateApiKey();
    const hint = hintOf(key);
    expect(hint).toMatch(/^sk-[0-9A-Za-z]{4}…[0-9A-Za-z]{4}$/);
    expect(hint.length).toBeLessThan(key.length / 3);
  });
});

describe('passwords', () => {
  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('stores scrypt$N$r$p$salt$hash without the plaintext, salted differently each time', async () => {
    const first = await hashPassword('hunter2-hunter2');
    const second = await hashPassword('hunter2-hunter2');
    expect(first).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(first).not.toContain('hunter2');
    expect(first).not.toBe(second);
    expect(await verifyPassword('hunter2-hunter2', second)).toBe(true);
  });

  it('refuses malformed or foreign hashes', async () => {
    expect(await verifyPassword('x', 'bcrypt$2b$10$abc')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$16384$8$1')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });
});

describe('upstream key cipher', () => {
  const plaintext = 'sk-proj-UPSTREAM-secret-0123456789';

  it('round-trips, with a fresh ciphertext every time and no plaintext in it', () => {
    const first = encryptSecret(plaintext, secretA);
    const second = encryptSecret(plaintext, secretA);
    expect(first).not.toBe(second);
    expect(first.startsWith('v1.')).toBe(true);
    expect(first).not.toContain('UPSTREAM');
    expect(decryptSecret(first, secretA)).toBe(plaintext);
    expect(decryptSecret(second, secretA)).toBe(plaintext);
    expect(decryptSecret(encryptSecret('', secretA), secretA)).toBe('');
  });

  it.each([1, 2, 3])('throws when part %i (iv, tag, data) is tampered with', (part) => {
    const pieces = encryptSecret(plaintext, secretA).split('.');
    const bytes = Buffer.from(pieces[part]!, 'base64url');
    bytes[0] = bytes[0]! ^ 0x01;
    pieces[part] = bytes.toString('base64url');
    expect(() => decryptSecret(pieces.join('.'), secretA)).toThrow();
  });

  it('throws on a wrong key, an unknown version or a truncated value', () => {
    const encrypted = encryptSecret(plaintext, secretA);
    expect(() => decryptSecret(encrypted, secretB)).toThrow();
    expect(() => decryptSecret(encrypted.replace(/^v1/, 'v2'), secretA)).toThrow();
    expect(() => decryptSecret(encrypted.split('.').slice(0, 3).join('.'), secretA)).toThrow();
    expect(() => decryptSecret('garbage', secretA)).toThrow();
  });

  // A tag cut to 4 bytes would lower the forgery bound from 2^128 to 2^32.
  it('throws when the tag is truncated to 4 bytes', () => {
    const [version, iv, tag, data] = encryptSecret(plaintext, secretA).split('.');
    const short = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => decryptSecret([version, iv, short, data].join('.'), secretA)).toThrow();
  });
});

describe('server secret', () => {
  const directories: string[] = [];
  const tempDirectory = () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'gateway-secret-'));
    directories.push(directory);
    return directory;
  };
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it('derives distinct 32-byte keys per purpose, stable per secret', () => {
    const keys = deriveKeys('a'.repeat(32));
    const values = [keys.keyHashing, keys.encryption, keys.sessions];
    for (const value of values) expect(value.length).toBe(32);
    expect(new Set(values.map((value) => value.toString('hex'))).size).toBe(3);
    expect(deriveKeys('a'.repeat(32)).encryption.equals(keys.encryption)).toBe(true);
    expect(deriveKeys('b'.repeat(32)).encryption.equals(keys.encryption)).toBe(false);
  });

  it('generates a secret, keeps it owner-only under the data dir, and reuses it', () => {
    const dataDirectory = path.join(tempDirectory(), 'nested', 'data');
    const first = loadServerSecret({ secret: undefined, dataDirectory, required: false });
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dataDirectory, 'secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadServerSecret({ secret: undefined, dataDirectory, required: false })).toBe(first);
    expect(loadServerSecret({ secret: undefined, dataDirectory: tempDirectory(), required: false })).not.toBe(first);
  });

  it('prefers GATEWAY_SECRET and writes nothing then', () => {
    const dataDirectory = tempDirectory();
    const secret = 'x'.repeat(32);
    expect(loadServerSecret({ secret, dataDirectory, required: true })).toBe(secret);
    expect(() => statSync(path.join(dataDirectory, 'secret'))).toThrow();
  });

  it('refuses a GATEWAY_SECRET shorter than 32 characters', () => {
    const options = { secret: 'x'.repeat(31), dataDirectory: tempDirectory(), required: false };
    expect(() => loadServerSecret(options)).toThrow(/32 characters/);
  });

  it('requires a secret in cluster mode', () => {
    expect(() => loadServerSecret({ secret: undefined, dataDirectory: tempDirectory(), required: true })).toThrow(
      /GATEWAY_SECRET is required/,
    );
  });
});
