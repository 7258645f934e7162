/**
 * @module gateway/console-api/sso-provider
 * The OpenID Connect provider, through openid-client: discovery from the issuer URL, the authorization
 * URL of a code flow with PKCE, state and nonce, and the code exchange, whose ID token the library
 * validates (signature, issuer, audience, expiry, nonce). Every failure becomes one of the codes the
 * console's sign-in page explains.
 */
import * as oidc from 'openid-client';
import type { SsoErrorCode } from '../../contracts/console-api-sign-in.ts';
import { log } from '../../platform/log.ts';
import type { SsoSettings } from '../config/sign-in-settings.ts';

export class SsoError extends Error {
  readonly code: SsoErrorCode;

  constructor(code: SsoErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export interface SsoStart {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The claims of a signed-in user: the ID token's, with the UserInfo endpoint's filling the gaps. */
export type SsoClaims = Record<string, unknown>;

const TIMEOUT_SECONDS = 10;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const UNAVAILABLE_CODES = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);

/** The code of a failure thrown by openid-client (or by fetch under it). */
function classify(error: unknown): SsoErrorCode {
  if (error instanceof oidc.AuthorizationResponseError) return 'sso_denied';
  if (error instanceof oidc.ResponseBodyError) {
    return error.status >= 500 ? 'sso_provider_unavailable' : 'sso_invalid_response';
  }
  if (error instanceof oidc.ClientError) {
    return UNAVAILABLE_CODES.has(error.code ?? '') ? 'sso_provider_unavailable' : 'sso_invalid_response';
  }
  // fetch's network failures (TypeError) and timeouts (DOMException)
  return 'sso_provider_unavailable';
}

function failure(error: unknown, step: string): SsoError {
  const code = classify(error);
  log.warn('single sign-on failed', { step, code, error: error instanceof Error ? error.message : String(error) });
  return new SsoError(code, `Single sign-on failed at ${step}.`);
}

export class SsoProvider {
  readonly #settings: SsoSettings;
  #configuration: Promise<oidc.Configuration> | null = null;

  constructor(settings: SsoSettings) {
    this.#settings = settings;
  }

  /** The provider's metadata, discovered once; a failed discovery is tried again at the next sign-in. */
  #configure(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.#settings;
    this.#configuration ??= oidc
      .discovery(issuer, clientId, undefined, oidc.ClientSecretBasic(clientSecret), {
        timeout: TIMEOUT_SECONDS,
        // Plain http only to a provider on this machine (a local Keycloak, the tests' provider).
        ...(issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname) && { execute: [oidc.allowInsecureRequests] }),
      })
      .catch((error: unknown) => {
        this.#configuration = null;
        throw failure(error, 'discovery');
      });
    return this.#configuration;
  }

  /** The provider's authorization URL for a new sign-in, and what the callback must check it against. */
  async start(): Promise<{ url: URL; start: SsoStart }> {
    const configuration = await this.#configure();
    const start = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#settings.redirectUri,
      scope: this.#settings.scopes.join(' '),
      state: start.state,
      nonce: start.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(start.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, start };
  }

  /** The user's claims, from the code in `callbackUrl` (the redirect URL as the provider called it). */
  async finish(callbackUrl: URL, start: SsoStart): Promise<SsoClaims> {
    const configuration = await this.#configure();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: start.codeVerifier,
        expectedState: start.state,
        expectedNonce: start.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw failure(error, 'code exchange');
    }
    const claims: SsoClaims = { ...tokens.claims() };
    const { groupsClaim } = this.#settings;
    const missing = claims.email === undefined || claims.email_verified === undefined;
    if (!missing && (!groupsClaim || claims[groupsClaim] !== undefined)) return claims;
    // Providers that keep the ID token small (or conform it to the scopes) answer these at UserInfo.
    try {
      const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
      return { ...userInfo, ...claims };
    } catch (error) {
      throw failure(error, 'userinfo');
    }
  }
}
