/**
 * @module gateway/relay/authenticate
 * Key checks on the hot path, the one authentication step of every `/v1` route: find the key by its
 * keyed hash (in memory; a key this node has not seen yet is asked of the shared lookups), then its
 * status, expiry, quota, IP allowlist and model allowlist. Every refusal says why and what to do.
 */
import type { IncomingMessage } from 'node:http';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import { cachedApiKeyHash } from '../security/api-keys.ts';
import { clientAddressOf, isAllowed } from '../security/ip-allowlist.ts';
import type { EndpointSpec } from './endpoints.ts';
import { GatewayError } from './errors.ts';

/**
 * A refusal of a key that was recognised (revoked, disabled, expired, out of quota, wrong address):
 * the request is recorded as the key's, so that its owner finds it in the usage log.
 */
export class KeyRefusedError extends GatewayError {
  readonly token: TokenDocument;

  constructor(token: TokenDocument, ...rest: ConstructorParameters<typeof GatewayError>) {
    super(...rest);
    this.token = token;
  }
}

export interface AuthenticatedKey {
  token: TokenDocument;
}

/** What authentication reads; the relay's dependencies carry all of it. */
export interface AuthenticationDependencies {
  lookups: LookupReadModel;
  hashingKey: Buffer;
  /** X-Forwarded-For hops to trust for the client address (0: the socket's) */
  trustProxyHops?: number;
}

/**
 * Finds the request's key and checks it is usable at all (before the body is read). Synchronous when
 * the key is in this node's memory, the steady state, so the relay takes no microtask hop; a promise
 * only for a key this node has not seen (created through another node a moment ago), which is looked
 * up in the shared lookups before it is refused.
 */
export function authenticateRequest(
  request: IncomingMessage,
  endpoint: Pick<EndpointSpec, 'keyOf' | 'keyHint'>,
  dependencies: AuthenticationDependencies,
): AuthenticatedKey | Promise<AuthenticatedKey> {
  const apiKey = endpoint.keyOf(request.headers, request.url);
  if (!apiKey) {
    throw new GatewayError(
      'authentication',
      `Missing API key. Send your key as ${endpoint.keyHint}; create one in the console.`,
    );
  }
  const { lookups } = dependencies;
  const keyHash = cachedApiKeyHash(apiKey, dependencies.hashingKey);
  const token = lookups.tokenByKeyHash(keyHash);
  if (token) return { token: checkKey(token, lookups, request, dependencies.trustProxyHops ?? 0, Date.now()) };
  return lookups.ensureKeyHash(keyHash).then(() => ({
    token: checkKey(lookups.tokenByKeyHash(keyHash), lookups, request, dependencies.trustProxyHops ?? 0, Date.now()),
  }));
}

function checkKey(
  token: TokenDocument | undefined,
  lookups: LookupReadModel,
  request: IncomingMessage,
  trustProxyHops: number,
  now: number,
): TokenDocument {
  if (!token) {
    throw new GatewayError(
      'authentication',
      'Incorrect API key provided. Check the key, or create a new one in the console.',
    );
  }
  if (token.revoked)
    throw new KeyRefusedError(
      token,
      'authentication',
      'This API key has been revoked. Create a new key in the console.',
    );
  if (!token.enabled)
    throw new KeyRefusedError(token, 'authentication', 'This API key is disabled. Enable it in the console.');
  if (lookups.userById(token.userId)?.disabled) {
    throw new KeyRefusedError(
      token,
      'authentication',
      'The account this API key belongs to is disabled. Ask an administrator to enable it.',
      { code: 'account_disabled' },
    );
  }
  if (token.expiresAt && Date.parse(token.expiresAt) <= now) {
    throw new KeyRefusedError(
      token,
      'authentication',
      `This API key expired at ${token.expiresAt}. Extend it or create a new key in the console.`,
      {
        code: 'expired_api_key',
      },
    );
  }
  const { usedTokens } = lookups.tokenUsage(token.tokenId);
  if (token.quota !== null && usedTokens >= token.quota) {
    throw new KeyRefusedError(
      token,
      'insufficient_quota',
      `This API key has used its quota (${usedTokens} of ${token.quota} tokens). Raise the quota in the console.`,
    );
  }
  if (token.ipAllowlist) {
    // Only keys with an allowlist pay for reading the address.
    const clientAddress = clientAddressOf(request, trustProxyHops);
    if (!isAllowed(token.ipAllowlist, clientAddress)) {
      throw new KeyRefusedError(
        token,
        'permission',
        `This API key may not be used from ${clientAddress || 'this address'}. Add the address to the key's IP allowlist in the console, or use the key from an allowed address.`,
        { code: 'ip_not_allowed' },
      );
    }
  }
  return token;
}

/** The model allowlist, checked once the body names the model. */
export function authorizeModel(token: TokenDocument, model: string): void {
  if (token.models && !token.models.includes(model)) {
    throw new GatewayError(
      'permission',
      `This API key may not use the model "${model}". It is limited to: ${token.models.join(', ')}.`,
      { param: 'model', code: 'model_not_allowed' },
    );
  }
}

/** `Authorization: Bearer <key>` */
export function bearerKey(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match?.[1]?.trim() || null;
}
