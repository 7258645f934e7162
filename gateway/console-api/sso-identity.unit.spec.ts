import { describe, expect, it } from 'vitest';
import { identityOf } from './sso-identity.ts';

const roles = { groupsClaim: 'groups', adminGroups: ['gateway-admins'] };
const noRoles = { groupsClaim: undefined, adminGroups: [] };

describe("the identity in a provider's claims", () => {
  it('takes a verified email, lower-cased, and a display name', () => {
    const identity = identityOf({ email: 'Ada@Example.com', email_verified: true, name: 'Ada' }, noRoles);
    expect(identity).toEqual({ email: 'ada@example.com', name: 'Ada', admin: undefined });
  });

  it.each([[{ email_verified: 'true' }], [{ xms_edov: true }]])('counts %j as verified', (verified) => {
    expect(identityOf({ email: 'a@example.com', ...verified }, noRoles).email).toBe('a@example.com');
  });

  it.each([
    [{ email: 'a@example.com' }, 'sso_email_unverified'],
    [{ email: 'a@example.com', email_verified: false }, 'sso_email_unverified'],
    [{ email: 'a@example.com', email_verified: 'false' }, 'sso_email_unverified'],
    [{ email_verified: true }, 'sso_email_missing'],
    [{ email: 'not an email', email_verified: true }, 'sso_email_missing'],
  ])('refuses %j as %s', (claims, code) => {
    expect(() => identityOf(claims, noRoles)).toThrow(expect.objectContaining({ code }));
  });

  it("makes admins of the admin groups' members when the groups claim is configured", () => {
    const claims = { email: 'a@example.com', email_verified: true };
    expect(identityOf({ ...claims, groups: ['staff', 'gateway-admins'] }, roles).admin).toBe(true);
    expect(identityOf({ ...claims, groups: 'gateway-admins' }, roles).admin).toBe(true);
    expect(identityOf({ ...claims, groups: ['staff'] }, roles).admin).toBe(false);
    expect(identityOf(claims, roles).admin).toBe(false);
    expect(identityOf({ ...claims, groups: ['gateway-admins'] }, noRoles).admin).toBeUndefined();
  });
});
