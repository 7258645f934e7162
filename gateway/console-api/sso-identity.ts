/**
 * @module gateway/console-api/sso-identity
 * Who a provider's claims say the user is: an email the provider vouches for, a display name, and,
 * when the groups claim is configured, whether their groups make them an administrator.
 */
import { emailSchema } from '../../contracts/console-api.ts';
import type { SsoIdentity } from '../commands/sso-accounts.ts';
import type { SsoSettings } from '../config/sign-in-settings.ts';
import { type SsoClaims, SsoError } from './sso-provider.ts';

/**
 * `email_verified` as providers send it: a boolean, or the string "true" (Amazon Cognito). Microsoft
 * Entra ID sends no `email_verified`; its optional claim `xms_edov` says the email's domain is verified
 * by the tenant that owns it.
 */
function emailVerified(claims: SsoClaims): boolean {
  const verified = claims.email_verified;
  return verified === true || verified === 'true' || claims.xms_edov === true;
}

function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : [];
}

function nameOf(claims: SsoClaims): string | undefined {
  for (const claim of ['name', 'preferred_username', 'given_name']) {
    const value = claims[claim];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return undefined;
}

export function identityOf(claims: SsoClaims, settings: Pick<SsoSettings, 'groupsClaim' | 'adminGroups'>): SsoIdentity {
  const email = emailSchema.safeParse(claims.email);
  if (!email.success) {
    throw new SsoError('sso_email_missing', 'The provider sent no email address for this user.');
  }
  if (!emailVerified(claims)) {
    throw new SsoError('sso_email_unverified', 'The provider does not vouch for this email address.');
  }
  const { groupsClaim, adminGroups } = settings;
  const groups = groupsClaim && adminGroups.length > 0 ? groupsOf(claims[groupsClaim]) : null;
  return {
    email: email.data,
    name: nameOf(claims),
    admin: groups ? groups.some((group) => adminGroups.includes(group)) : undefined,
  };
}
