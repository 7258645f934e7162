/**
 * The sign-in methods a gateway offers, on the embedded store: with local passwords off, the password
 * routes refuse and single sign-on is the way in (an ADMIN_EMAIL account included, matched by email);
 * without single sign-on configured, its routes say so; with the provider unreachable, the start
 * lands on the sign-in page with a code saying that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { freePort } from '../support/free-port.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { OidcBrowser } from '../support/oidc-browser.ts';
import {
  startTestProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestProvider,
} from '../support/oidc-test-provider.ts';
import { finishOn, untilCallback } from '../support/sso-scenarios.ts';

describe('local passwords off', () => {
  let provider: TestProvider;
  let harness: Harness;

  beforeAll(async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startTestProvider({
      redirectUris: [`${publicUrl}/api/auth/sso/callback`],
      accounts: { root: { email: 'root@example.com', email_verified: true } },
    });
    harness = await startHarness({
      port,
      environment: {
        PUBLIC_URL: publicUrl,
        LOCAL_PASSWORDS: 'off',
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: TEST_CLIENT_ID,
        OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
        ADMIN_EMAIL: 'root@example.com',
        ADMIN_PASSWORD: 'admin-password-1',
      },
    });
  });
  afterAll(async () => {
    await harness.stop();
    await provider.stop();
  });

  it('says only single sign-on is on', async () => {
    const { body } = await new ConsoleClient(harness.baseUrl).call('GET', '/api/auth/methods');
    expect(body).toEqual({ password: false, sso: { provider: '127.0.0.1', start_url: '/api/auth/sso/start' } });
  });

  it('refuses registration and password sign-in, even with the right password', async () => {
    const client = new ConsoleClient(harness.baseUrl);
    const register = await client.call('POST', '/api/auth/register', {
      email: 'new@example.com',
      password: 'long-enough-1',
    });
    const login = await client.call('POST', '/api/auth/login', {
      email: 'root@example.com',
      password: 'admin-password-1',
    });
    for (const answer of [register, login]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('local_passwords_off');
      expect(answer.body.error.message).toContain('sign in with 127.0.0.1');
    }
  });

  it('signs the ADMIN_EMAIL account in through the provider, and refuses it a password change', async () => {
    const started = await untilCallback(harness.baseUrl, 'root');
    const finished = await finishOn(harness.baseUrl, started);
    expect(finished).toMatchObject({ location: '/overview', email: 'root@example.com', role: 'admin' });
    const change = await started.browser.request(`${harness.baseUrl}/api/auth/password`, {
      method: 'POST',
      headers: { origin: harness.baseUrl },
      form: { current_password: 'admin-password-1', new_password: 'another-password-2' },
    });
    expect(change.status).toBe(403);
    expect(((await change.json()) as { error: { code: string } }).error.code).toBe('local_passwords_off');
  });
});

describe('single sign-on not configured, or its provider unreachable', () => {
  let plain: Harness;
  let unreachable: Harness;

  beforeAll(async () => {
    plain = await startHarness();
    const deadPort = await freePort();
    unreachable = await startHarness({
      environment: {
        PUBLIC_URL: 'https://gateway.example.com',
        OIDC_ISSUER: `http://127.0.0.1:${deadPort}/realms/main`,
        OIDC_CLIENT_ID: TEST_CLIENT_ID,
        OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      },
    });
  });
  afterAll(async () => {
    await plain.stop();
    await unreachable.stop();
  });

  it('offers passwords only, and says single sign-on is not configured', async () => {
    const client = new ConsoleClient(plain.baseUrl);
    expect((await client.call('GET', '/api/auth/methods')).body).toEqual({ password: true, sso: null });
    const start = await client.call('GET', '/api/auth/sso/start');
    expect(start.status).toBe(404);
    expect(start.body.error.code).toBe('sso_not_configured');
  });

  it('sends the browser back to the sign-in page when the provider does not answer', async () => {
    const response = await new OidcBrowser().request(`${unreachable.baseUrl}/api/auth/sso/start`);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/sign-in?sso_error=sso_provider_unavailable');
  });
});
