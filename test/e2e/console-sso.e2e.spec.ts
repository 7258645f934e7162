/**
 * Single sign-on in Chromium, with local passwords off: the sign-in page offers only "Sign in with
 * <provider>", the browser goes through the real provider's login and consent pages (oidc-provider on
 * loopback) and lands signed in on the page it asked for; an unverified email comes back to the
 * sign-in page with the reason in the page's language. Screenshots in test/artifacts/sso/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import type { Harness } from '../support/gateway-harness.ts';
import {
  startTestProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestProvider,
} from '../support/oidc-test-provider.ts';
import {
  type ConsolePage,
  clearArtifacts,
  launchBrowser,
  openPage,
  screenshot,
  waitForText,
} from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const ARTIFACTS = 'sso';

let provider: TestProvider;
let harness: Harness;
let browser: Browser;
const opened: ConsolePage[] = [];

beforeAll(async () => {
  clearArtifacts(ARTIFACTS);
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({
    redirectUris: [`${publicUrl}/api/auth/sso/callback`],
    accounts: {
      ada: { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' },
      eve: { email: 'eve@example.com', email_verified: false },
    },
  });
  harness = await startHarness({
    port,
    environment: {
      PUBLIC_URL: publicUrl,
      LOCAL_PASSWORDS: 'off',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT_ID,
      OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      OIDC_PROVIDER_NAME: 'Test IdP',
    },
  });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  for (const page of opened) await page.close();
  await browser?.close();
  await harness?.stop();
  await provider?.stop();
});

async function open(locale = 'en-US'): Promise<ConsolePage> {
  const consolePage = await openPage(browser, harness.baseUrl, { locale });
  opened.push(consolePage);
  return consolePage;
}

/** On the provider's pages: its development login form (any password), then its consent form. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await page.click('button[type=submit]');
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.click('button[type=submit]');
}

describe('single sign-on in the browser', () => {
  it("signs in through the provider's pages and lands on the page asked for", async () => {
    const { page, errors } = await open();
    await page.goto('/tokens');
    await page.waitForURL((url) => url.pathname === '/sign-in' && url.searchParams.get('redirect') === '/tokens');
    await waitForText(page, '[data-test=sso-sign-in]', 'Sign in with Test IdP');
    expect(await page.locator('input[type=password]').count()).toBe(0);
    await screenshot(page, `${ARTIFACTS}/sign-in-sso-only`);
    await page.click('[data-test=sso-sign-in]');
    await signInAtProvider(page, 'ada');
    await page.waitForURL(`${harness.baseUrl}/tokens`);
    const me = await page.evaluate(async () => (await fetch('/api/me')).json());
    expect(me).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', role: 'user' });
    await screenshot(page, `${ARTIFACTS}/signed-in-tokens`);
    expect(errors).toEqual([]);
  });

  it('brings an unverified email back to the sign-in page with the reason, in Chinese', async () => {
    const { page } = await open('zh-CN');
    await page.goto('/sign-in');
    await waitForText(page, '[data-test=sso-sign-in]', '使用 Test IdP 登录');
    await page.click('[data-test=sso-sign-in]');
    await signInAtProvider(page, 'eve');
    await page.waitForURL('**/sign-in?sso_error=sso_email_unverified');
    await waitForText(page, '[data-test=sso-error]', '身份提供方尚未验证你的邮箱地址');
    await screenshot(page, `${ARTIFACTS}/unverified-email-zh`);
  });
});
