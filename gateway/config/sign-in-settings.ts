/**
 * @module gateway/config/sign-in-settings
 * How people sign in to the console: with a local password, with single sign-on through one OpenID
 * Connect provider, or both. A misconfiguration stops the start with what to set, since a console no
 * one can sign in to is worse than a gateway that does not start.
 */
import { readFileSync } from 'node:fs';
import { originOf } from '../security/origin.ts';

/** The gateway's path the provider sends the browser back to, under the public origin. */
export const SSO_CALLBACK_PATH = '/api/auth/sso/callback';

export interface SsoSettings {
  /** the provider's issuer URL, where `/.well-known/openid-configuration` is found */
  issuer: URL;
  clientId: string;
  /** from OIDC_CLIENT_SECRET or the file OIDC_CLIENT_SECRET_FILE names; never logged or returned */
  clientSecret: string;
  /** PUBLIC_URL's origin and the callback path, as registered at the provider */
  redirectUri: string;
  scopes: string[];
  /** shown on the console's button: "Sign in with <name>" */
  providerName: string;
  /** the claim that lists the user's groups; unset: roles are not taken from the provider */
  groupsClaim: string | undefined;
  /** members of any of these groups are administrators (with `groupsClaim`) */
  adminGroups: string[];
}

export interface SignInSettings {
  /** email and password sign-in, registration and password changes (`LOCAL_PASSWORDS`) */
  localPasswords: boolean;
  sso: SsoSettings | null;
}

const list = (value: string | undefined, separator: RegExp): string[] =>
  (value ?? '')
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);

function clientSecret(environment: NodeJS.ProcessEnv): string {
  const file = environment.OIDC_CLIENT_SECRET_FILE;
  const secret = file ? readFileSync(file, 'utf8').trim() : environment.OIDC_CLIENT_SECRET;
  if (!secret) throw new Error('OIDC_CLIENT_SECRET (or OIDC_CLIENT_SECRET_FILE) is required with OIDC_ISSUER.');
  return secret;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The issuer over https; plain http only for a provider on this machine (a local Keycloak, the tests'). */
function issuerUrl(value: string): URL {
  const origin = originOf(value);
  const url = origin ? new URL(value) : null;
  if (!url || (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))) {
    throw new Error(`OIDC_ISSUER must be the provider's https issuer URL (got "${value}").`);
  }
  return url;
}

function readSso(environment: NodeJS.ProcessEnv, publicOrigin: string | undefined): SsoSettings | null {
  const issuer = environment.OIDC_ISSUER;
  if (!issuer) return null;
  const clientId = environment.OIDC_CLIENT_ID;
  if (!clientId) throw new Error('OIDC_CLIENT_ID is required with OIDC_ISSUER.');
  // The provider only sends the browser to a redirect URL it has on file: it must be stable, not taken
  // from whatever Host a request names.
  if (!publicOrigin) throw new Error('PUBLIC_URL is required with OIDC_ISSUER: the sign-in callback is under it.');
  const url = issuerUrl(issuer);
  const scopes = list(environment.OIDC_SCOPES ?? 'openid email profile', /[\s,]+/);
  return {
    issuer: url,
    clientId,
    clientSecret: clientSecret(environment),
    redirectUri: `${publicOrigin}${SSO_CALLBACK_PATH}`,
    scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
    providerName: environment.OIDC_PROVIDER_NAME?.trim() || url.hostname,
    groupsClaim: environment.OIDC_GROUPS_CLAIM?.trim() || undefined,
    adminGroups: list(environment.OIDC_ADMIN_GROUPS, /,/),
  };
}

function onOff(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new Error(`${name} must be "on" or "off" (got "${value}").`);
}

export function readSignInSettings(environment: NodeJS.ProcessEnv, publicOrigin: string | undefined): SignInSettings {
  const sso = readSso(environment, publicOrigin);
  const localPasswords = onOff(environment.LOCAL_PASSWORDS, 'LOCAL_PASSWORDS');
  if (!localPasswords && !sso) {
    throw new Error('LOCAL_PASSWORDS=off needs single sign-on (OIDC_ISSUER): otherwise no one could sign in.');
  }
  if (sso && sso.adminGroups.length > 0 && !sso.groupsClaim) {
    throw new Error('OIDC_ADMIN_GROUPS needs OIDC_GROUPS_CLAIM: the claim that lists the groups of the user.');
  }
  return { localPasswords, sso };
}
