/**
 * Single sign-on on the embedded store, against a real OpenID provider (oidc-provider) on loopback:
 * the whole authorization code flow with PKCE over HTTP, accounts matched or created by verified
 * email, roles from the groups claim, and a clear code on the sign-in page for every failure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { freePort } from '../support/free-port.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { OidcBrowser } from '../support/oidc-browser.ts';
import {
  startTestProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestAccount,
  type TestProvider,
} from '../support/oidc-test-provider.ts';
import { finishOn, firstSignInsAtOnce, signInWithSso, untilCallback } from '../support/sso-scenarios.ts';

const accounts: Record<string, TestAccount> = {
  ada: { email: 'Ada@Example.com', email_verified: true, name: 'Ada Lovelace' },
  eve: { email: 'eve@example.com', email_verified: false },
  bob: { email: 'bob@example.com', email_verified: true },
  grace: { email: 'grace@example.com', email_verified: true, groups: ['staff', 'gateway-admins'] },
  twin: { email: 'twin-0@example.com', email_verified: true },
};

let provider: TestProvider;
let harness: Harness;
let admin: ConsoleClient;

beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({ redirectUris: [`${publicUrl}/api/auth/sso/callback`], accounts });
  harness = await startHarness({
    port,
    environment: {
      PUBLIC_URL: publicUrl,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT_ID,
      OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      OIDC_PROVIDER_NAME: 'Test IdP',
      OIDC_GROUPS_CLAIM: 'groups',
      OIDC_ADMIN_GROUPS: 'gateway-admins,ops',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'admin-password-1',
    },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => {
  await harness.stop();
  await provider.stop();
});

async function accountsWithEmail(email: string): Promise<number> {
  const { body } = await admin.call('GET', '/api/users');
  return body.items.filter((user: { email: string }) => user.email === email).length;
}

describe('single sign-on (embedded)', () => {
  it('says which sign-in methods are on', async () => {
    const { status, body } = await new ConsoleClient(harness.baseUrl).call('GET', '/api/auth/methods');
    expect(status).toBe(200);
    expect(body).toEqual({ password: true, sso: { provider: 'Test IdP', start_url: '/api/auth/sso/start' } });
  });

  it('signs a new person in through the provider, creating their account by verified email', async () => {
    const { browser, callback } = await untilCallback(harness.baseUrl, 'ada', '/tokens');
    expect(callback.searchParams.get('code')).toBeTruthy();
    const finished = await finishOn(harness.baseUrl, { browser, callback });
    expect(finished).toMatchObject({ status: 303, location: '/tokens', email: 'ada@example.com', role: 'user' });
    const { body } = await admin.call('GET', '/api/users');
    expect(body.items.find((user: { email: string }) => user.email === 'ada@example.com').name).toBe('Ada Lovelace');
    // The session is the console's own: it works for the rest of the API.
    expect((await browser.request(`${harness.baseUrl}/api/tokens`)).status).toBe(200);
  });

  it('signs the same person into the same account the next time', async () => {
    const first = await signInWithSso(harness.baseUrl, 'ada');
    const again = await signInWithSso(harness.baseUrl, 'ada');
    expect(again.userId).toBe(first.userId);
    expect(await accountsWithEmail('ada@example.com')).toBe(1);
  });

  it('lands only on a path of this site, whatever the start asked for', async () => {
    for (const redirect of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      expect((await signInWithSso(harness.baseUrl, 'ada', redirect)).location).toBe('/overview');
    }
  });

  it('matches an account registered with a password by its email', async () => {
    const registered = await new ConsoleClient(harness.baseUrl).register('bob@example.com');
    const finished = await signInWithSso(harness.baseUrl, 'bob');
    expect(finished.userId).toBe(registered.id);
  });

  it('refuses an email the provider has not verified, making no account', async () => {
    const finished = await signInWithSso(harness.baseUrl, 'eve');
    expect(finished).toMatchObject({ status: 303, location: '/sign-in?sso_error=sso_email_unverified', userId: null });
    expect(await accountsWithEmail('eve@example.com')).toBe(0);
  });

  it('refuses an answer delivered to a browser that did not start the sign-in, or with another state', async () => {
    const started = await untilCallback(harness.baseUrl, 'ada');
    const stranger = await finishOn(harness.baseUrl, { ...started, browser: new OidcBrowser() });
    expect(stranger).toMatchObject({ location: '/sign-in?sso_error=sso_state_mismatch', userId: null });

    const other = await untilCallback(harness.baseUrl, 'ada');
    other.callback.searchParams.set('state', 'forged-state');
    expect((await finishOn(harness.baseUrl, other)).location).toBe('/sign-in?sso_error=sso_state_mismatch');
  });

  it('says the provider refused when it answers with an error', async () => {
    const browser = new OidcBrowser();
    const start = await browser.request(`${harness.baseUrl}/api/auth/sso/start`);
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const denied = new URL(`${harness.baseUrl}/api/auth/sso/callback`);
    denied.search = new URLSearchParams({ error: 'access_denied', state, iss: provider.issuer }).toString();
    expect((await finishOn(harness.baseUrl, { browser, callback: denied })).location).toBe(
      '/sign-in?sso_error=sso_denied',
    );
  });

  it('says the provider is unavailable when it stops answering before the code exchange', async () => {
    const started = await untilCallback(harness.baseUrl, 'ada');
    await provider.stop();
    try {
      const finished = await finishOn(harness.baseUrl, started);
      expect(finished).toMatchObject({ location: '/sign-in?sso_error=sso_provider_unavailable', userId: null });
    } finally {
      await provider.start();
    }
  });

  it('makes members of an admin group administrators, and takes it back when they leave it', async () => {
    const grace = await signInWithSso(harness.baseUrl, 'grace');
    expect(grace.role).toBe('admin');
    accounts.grace!.groups = ['staff'];
    expect((await signInWithSso(harness.baseUrl, 'grace')).role).toBe('user');
    accounts.grace!.groups = ['ops'];
    expect((await signInWithSso(harness.baseUrl, 'grace')).role).toBe('admin');
  });

  it('makes one account of first sign-ins of one email at the same moment', async () => {
    for (let round = 0; round < 3; round++) {
      const email = `twin-${round}@example.com`;
      accounts.twin!.email = email;
      const finished = await firstSignInsAtOnce([harness.baseUrl], 'twin', 4);
      expect(finished.map((one) => one.location)).toEqual(['/overview', '/overview', '/overview', '/overview']);
      expect(new Set(finished.map((one) => one.userId)).size).toBe(1);
      expect(await accountsWithEmail(email)).toBe(1);
    }
  });

  it('keeps the client secret out of every stored event and projection', () => {
    const files = readdirSync(harness.dataDirectory, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(readFileSync(path.join(file.parentPath, file.name)).includes(TEST_CLIENT_SECRET)).toBe(false);
    }
  });
});
