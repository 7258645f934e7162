/**
 * @module gateway/security/server-secret
 * The server secret keys every API-key hash and the upstream-key encryption. In the cluster it must
 * come from GATEWAY_SECRET (every node needs the same one); in embedded mode it is generated once and
 * kept under DATA_DIR, readable by the owner only.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface DerivedKeys {
  /** HMAC-SHA256 key for API-key hashes */
  keyHashing: Buffer;
  /** AES-256-GCM key for upstream provider keys */
  encryption: Buffer;
  /** HMAC key for console session cookies */
  sessions: Buffer;
  /** AES-256-GCM key for the conversation summaries the gateway gives out as compaction items */
  compaction: Buffer;
  /** AES-256-GCM key for the single sign-on cookie that carries a sign-in's state, nonce and PKCE verifier */
  signInFlow: Buffer;
}

export function loadServerSecret(options: {
  secret: string | undefined;
  dataDirectory: string;
  required: boolean;
}): string {
  if (options.secret) {
    if (options.secret.length < 32) throw new Error('GATEWAY_SECRET must be at least 32 characters long.');
    return options.secret;
  }
  if (options.required) throw new Error('GATEWAY_SECRET is required in cluster mode: every node must share it.');
  const file = path.join(options.dataDirectory, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(options.dataDirectory, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

function derive(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'llm-gateway', purpose, 32));
}

export function deriveKeys(secret: string): DerivedKeys {
  return {
    keyHashing: derive(secret, 'api-key-hash'),
    encryption: derive(secret, 'upstream-key-encryption'),
    sessions: derive(secret, 'console-session'),
    compaction: derive(secret, 'responses-compaction'),
    signInFlow: derive(secret, 'sign-in-flow'),
  };
}
