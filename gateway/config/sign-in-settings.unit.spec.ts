import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSignInSettings } from './sign-in-settings.ts';

const sso = {
  OIDC_ISSUER: 'https://id.example.com/realms/main',
  OIDC_CLIENT_ID: 'gateway',
  OIDC_CLIENT_SECRET: 's3cret',
};
const origin = 'https://gateway.example.com';

describe('sign-in settings', () => {
  it('offers passwords only by default', () => {
    expect(readSignInSettings({}, undefined)).toEqual({ localPasswords: true, sso: null });
  });

  it('derives the redirect URL from PUBLIC_URL and always asks for the openid scope', () => {
    const settings = readSignInSettings({ ...sso, OIDC_SCOPES: 'email profile' }, origin);
    expect(settings.sso).toMatchObject({
      redirectUri: 'https://gateway.example.com/api/auth/sso/callback',
      scopes: ['openid', 'email', 'profile'],
      providerName: 'id.example.com',
      groupsClaim: undefined,
      adminGroups: [],
    });
  });

  it('reads the client secret from a file', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'oidc-secret-')), 'secret');
    writeFileSync(file, 'from-a-file\n');
    const { OIDC_CLIENT_SECRET: _, ...withoutSecret } = sso;
    const settings = readSignInSettings({ ...withoutSecret, OIDC_CLIENT_SECRET_FILE: file }, origin);
    expect(settings.sso?.clientSecret).toBe('from-a-file');
  });

  it.each([
    [{ LOCAL_PASSWORDS: 'off' }, origin, /needs single sign-on/],
    [{ LOCAL_PASSWORDS: 'no' }, origin, /"on" or "off"/],
    [sso, undefined, /PUBLIC_URL is required/],
    [{ ...sso, OIDC_CLIENT_ID: '' }, origin, /OIDC_CLIENT_ID is required/],
    [{ ...sso, OIDC_CLIENT_SECRET: '' }, origin, /OIDC_CLIENT_SECRET/],
    [{ ...sso, OIDC_ISSUER: 'http://id.example.com' }, origin, /https issuer URL/],
    [{ ...sso, OIDC_ADMIN_GROUPS: 'admins' }, origin, /needs OIDC_GROUPS_CLAIM/],
  ])('refuses %j with what to set', (environment, publicOrigin, message) => {
    expect(() => readSignInSettings(environment, publicOrigin)).toThrow(message);
  });

  it('takes plain http only from a provider on this machine', () => {
    const local = readSignInSettings({ ...sso, OIDC_ISSUER: 'http://localhost:8080/realms/main' }, origin);
    expect(local.sso?.issuer.href).toBe('http://localhost:8080/realms/main');
  });
});
