/**
 * @module test/e2e/support/console-journey
 * The browser journey through every console page, run against a real gateway on a given store
 * (embedded, or the cluster's Kafka, ClickHouse and Redis): sign up, create a key and copy it, use it
 * with the official OpenAI client, watch calls and tokens appear in the overview and the usage log,
 * export CSV, revoke the key and see the next call refused; the password change, the admin pages,
 * phone width, Chinese, and the keyboard. Screenshots of every page go to test/artifacts/<artifacts>/.
 */
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, HarnessOptions } from '../../support/gateway-harness.ts';
import { type ConsolePage, clearArtifacts, launchBrowser, openPage, screenshot, waitForText } from './browser.ts';
import { buildConsole } from './build-console.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const hello = [{ role: 'user' as const, content: 'hi' }];

export interface JourneyOptions {
  /** shown in the suite's name */
  label: string;
  /** the folder under test/artifacts for this run's screenshots */
  artifacts: string;
  harness?: HarnessOptions;
  /** run after the gateway stops, e.g. to drop what the run left in shared servers */
  cleanup?: () => Promise<void>;
}

/** Defines the suite; call it at the top level of an `.e2e.spec.ts` file. */
export function consoleJourney(options: JourneyOptions): void {
  // The password changes half-way through the journey.
  const USER = { email: 'e2e-user@example.com', password: 'correct horse battery' };
  let harness: Harness;
  let browser: Browser;
  let user: ConsolePage;
  let page: Page;
  let key = '';
  const opened: ConsolePage[] = [];
  const track = async (opening: Promise<ConsolePage>) => {
    const consolePage = await opening;
    opened.push(consolePage);
    return consolePage;
  };

  beforeAll(async () => {
    clearArtifacts(options.artifacts);
    await buildConsole();
    // Imported after the build: the runtime picks console/dist (over the placeholder) when it loads.
    const { startHarness } = await import('../../support/gateway-harness.ts');
    harness = await startHarness({
      ...options.harness,
      environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ...options.harness?.environment },
    });
    browser = await launchBrowser();
    user = await track(openPage(browser, harness.baseUrl));
    page = user.page;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.stop();
    await options.cleanup?.();
  });

  function openai(apiKey: string): OpenAI {
    return new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey, maxRetries: 0 });
  }

  async function signIn(target: Page, credentials: { email: string; password: string }): Promise<void> {
    await target.goto('/sign-in');
    await target.fill('input[type=email]', credentials.email);
    await target.fill('input[type=password]', credentials.password);
    await target.click('button[type=submit]');
    await target.waitForURL('**/overview');
  }

  describe(`the console in a browser (${options.label})`, () => {
    it('serves the console with security headers, and sends visitors to sign in', async () => {
      const response = await page.goto('/');
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.waitForURL('**/sign-in');
      await page.waitForSelector('h1');
      expect(await page.textContent('h1')).toBe('Sign in');
      await screenshot(page, `${options.artifacts}/sign-in`);
    });

    it('signs up and lands on an empty overview', async () => {
      await page.click('a[href="/sign-up"]');
      await page.waitForURL('**/sign-up');
      await page.fill('input[type=email]', USER.email);
      await page.fill('input[autocomplete=new-password]', 'short');
      await page.click('button[type=submit]');
      await page.waitForSelector('.field-error');
      expect(await page.textContent('.field-error')).toMatch(/at least 8/);
      await screenshot(page, `${options.artifacts}/sign-up`);
      await page.fill('input[autocomplete=new-password]', USER.password);
      await page.click('button[type=submit]');
      await page.waitForURL('**/overview');
      await page.waitForSelector('[data-test=empty]');
      await waitForText(page, '[data-stat=calls] .stat-value', '0');
      await screenshot(page, `${options.artifacts}/overview-empty`);
    });

    it('creates a named key, shows it once with a warning, and copies it', async () => {
      await page.click('a[href="/tokens"]');
      await page.waitForSelector('[data-test=empty]');
      await page.click('[data-test=create-token]');
      await page.fill('[data-test=create-token-form] input[type=text] >> nth=0', 'e2e key');
      await page.click('[data-test=create-token-submit]');
      const reveal = page.locator('[data-test=new-key]');
      await reveal.waitFor();
      key = await reveal.inputValue();
      expect(key).toMatch(/^sk-[0-9A-Za-z]{40,}$/);
      expect(await page.textContent('.dialog[open] .alert-warn')).toMatch(/will not be shown again/);
      await page.click('[data-test=copy-key]');
      await waitForText(page, '[data-test=copy-key]', 'Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await screenshot(page, `${options.artifacts}/tokens-new-key`);
      await page.click('[data-test=key-done]');
      await page.waitForSelector('.dialog[open]', { state: 'detached' });
      const row = page.locator('tr[data-token="e2e key"]');
      expect(await row.textContent()).toContain(`${key.slice(0, 7)}…${key.slice(-4)}`);
      expect(await page.content()).not.toContain(key);
      await screenshot(page, `${options.artifacts}/tokens`);

      // Rename and disable a second key, by keyboard in the dialogs.
      await page.click('[data-test=create-token]');
      await page.keyboard.type('spare');
      await page.keyboard.press('Enter');
      // Not copied: the dialog asks once more before it closes.
      await page.click('[data-test=key-done]');
      await page.waitForSelector('[data-test=not-copied-warning]');
      await page.click('[data-test=key-done]');
      await page.click('tr[data-token=spare] >> text=Rename');
      await page.fill('[data-test=rename-input]', 'spare renamed');
      await page.keyboard.press('Enter');
      await page.locator('tr[data-token="spare renamed"] [data-test=toggle]').click();
      await waitForText(page, 'tr[data-token="spare renamed"]', 'Disabled');
      await page.keyboard.press('Escape');

      // Edit the spare key's limits: a monthly budget, a model picked from those the channels serve.
      const spare = 'tr[data-token="spare renamed"]';
      await page.click(`${spare} [data-test=edit]`);
      await page.fill('[data-test=token-budget]', '5');
      await page.selectOption('[data-test=token-period]', 'monthly');
      await page.check('[data-test=token-models] input[data-model=gpt-4o-mini]');
      await page.fill('[data-test=token-rpm]', '60');
      await page.click('[data-test=edit-token-submit]');
      await page.waitForSelector('.dialog[open]', { state: 'detached' });
      await waitForText(page, `${spare} [data-test=budget]`, '$5.00 a month');
      expect(await page.textContent(`${spare} [data-test=limits]`)).toContain('60 req/min');
      expect(await page.textContent(spare)).toContain('gpt-4o-mini');
    });

    it('shows the calls and tokens of the official OpenAI client in the overview charts', async () => {
      const client = openai(key);
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
      await client.chat.completions.stream({ model: 'gpt-4o-mini', messages: hello }).finalChatCompletion();
      await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: hello, temperature: 9 })
        .catch(() => undefined);
      await page.click('a[href="/overview"]');
      // The overview reads projections: poll with the refresh button as a user would.
      await page.waitForFunction(
        () => {
          const calls = document.querySelector('[data-stat=calls] .stat-value')?.textContent?.trim();
          if (calls !== '4') (document.querySelector('[data-test=refresh]') as HTMLButtonElement | null)?.click();
          return calls === '4';
        },
        undefined,
        { polling: 500, timeout: 10_000 },
      );
      const calls = page.locator('[data-chart-summary=calls]');
      expect(await calls.getAttribute('data-total')).toBe('4');
      const tokens = Number(await page.locator('[data-chart-summary=tokens]').getAttribute('data-total'));
      expect(tokens).toBeGreaterThan(0);
      // Four charts as before, and the spend by model beside them.
      expect(await page.locator('.chart canvas').count()).toBe(5);
      // gpt-4o-mini has a price in the price database: the spend is a sum in dollars, not unknown.
      expect(await page.textContent('[data-stat=spend] .stat-value')).toMatch(/\$\s?0\.\d+/);
      expect(await page.textContent('[data-stat=error-rate] .stat-value')).toBe('25%');
      expect(await page.textContent('[data-chart-summary=top-keys]')).toContain('e2e key');
      await screenshot(page, `${options.artifacts}/overview`);
    });

    it('lists the requests in the usage log, filters them and exports the filtered rows as CSV', async () => {
      await page.click('a[href="/logs"]');
      await page.waitForSelector('[data-test=log-table]');
      expect(await page.locator('[data-test=log-table] tbody tr').count()).toBe(4);
      const firstRow = await page.textContent('[data-test=log-table] tbody tr >> nth=0');
      expect(firstRow).toContain('e2e key');
      expect(firstRow).toContain('gpt-4o-mini');
      await screenshot(page, `${options.artifacts}/usage-log`);

      // Filters apply as they change: no button to press.
      await page.selectOption('[data-test=filter-status]', 'error');
      await page.waitForFunction(() => document.querySelectorAll('[data-test=log-table] tbody tr').length === 1);
      expect(await page.textContent('[data-test=log-table] tbody')).toContain('400');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-test=export-csv]')]);
      const file = readFileSync((await download.path())!);
      // A UTF-8 byte-order mark first, for Excel.
      expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const csv = file.toString('utf8').slice(1).trim().split('\r\n');
      expect(csv[0]).toMatch(/^started_at_utc,request_id,token_id,token_name,endpoint/);
      expect(csv).toHaveLength(2);
      expect(csv[1]).toContain('e2e key');
      expect(csv[1]).toContain(',400,');
    });

    it('revokes the key after a confirmation, and the next call is refused', async () => {
      await page.click('a[href="/tokens"]');
      await page.click('tr[data-token="e2e key"] [data-test=revoke]');
      await page.waitForSelector('.dialog[open] [data-test=confirm]');
      await screenshot(page, `${options.artifacts}/tokens-revoke-confirm`);
      await page.click('.dialog[open] [data-test=confirm]');
      // Revoked keys are hidden until asked for.
      await page.waitForSelector('tr[data-token="e2e key"]', { state: 'detached' });
      await page.uncheck('[data-test=hide-revoked]');
      await waitForText(page, 'tr[data-token="e2e key"]', 'Revoked');
      const refused = await openai(key)
        .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
        .catch((caught) => caught);
      expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(refused.message).toMatch(/revoked/);
    });

    it('changes the password: this session stays, another one is sent to sign in with a notice', async () => {
      const other = await track(openPage(browser, harness.baseUrl));
      try {
        await signIn(other.page, USER);
        await page.click('a[href="/account"]');
        await page.fill('[data-test=password-form] input[autocomplete=current-password]', USER.password);
        const fresh = page.locator('[data-test=password-form] input[autocomplete=new-password]');
        await fresh.nth(0).fill('a new password 123');
        await fresh.nth(1).fill('a new password 123');
        await page.click('[data-test=password-form] button[type=submit]');
        await waitForText(page, '.toasts', 'Password changed');
        await screenshot(page, `${options.artifacts}/account`);
        USER.password = 'a new password 123';
        await page.reload();
        await page.waitForSelector('[data-test=account-email]');

        await other.page.click('a[href="/tokens"]');
        await other.page.waitForURL('**/sign-in?**');
        await other.page.waitForSelector('[data-test=notice]');
        expect(await other.page.textContent('[data-test=notice]')).toMatch(/session has expired/);
        await screenshot(other.page, `${options.artifacts}/sign-in-expired`);
        await other.page.fill('input[type=email]', USER.email);
        await other.page.fill('input[type=password]', USER.password);
        await other.page.click('button[type=submit]');
        await other.page.waitForURL('**/tokens');
      } finally {
        await other.close();
      }
    });

    it('lets an admin add, test and disable a channel, and disable a user', async () => {
      const admin = await track(openPage(browser, harness.baseUrl));
      try {
        const { page: adminPage } = admin;
        await signIn(adminPage, ADMIN);
        await waitForText(adminPage, '[data-stat=calls] .stat-value', '0');
        await adminPage.selectOption('[data-test=scope]', 'all');
        // Everyone's calls: the user's four, and the refused call of the revoked key.
        await waitForText(adminPage, '[data-stat=calls] .stat-value', '5');
        await screenshot(adminPage, `${options.artifacts}/overview-admin-all-users`);

        await adminPage.click('a[href="/admin/channels"]');
        await adminPage.waitForSelector('[data-test=channels-table]');
        await adminPage.click('[data-test=add-channel]');
        const form = adminPage.locator('[data-test=channel-form]');
        await form.locator('input[type=text] >> nth=0').fill('browser-added');
        await form.locator('input[type=url]').fill(`${harness.upstream.url}/v1`);
        await form.locator('input[type=password]').fill('upstream-openai-key-0123456789abcdef');
        await form.locator('input[type=text] >> nth=1').fill('gpt-browser');
        await form.locator('textarea').fill('gpt-browser=gpt-4o-mini');
        await screenshot(adminPage, `${options.artifacts}/channels-form`);
        await adminPage.click('[data-test=save-channel]');
        const row = adminPage.locator('tr[data-channel=browser-added]');
        await row.waitFor();
        expect(await row.textContent()).toContain('••••cdef');
        expect(await adminPage.content()).not.toContain('upstream-openai-key-0123456789abcdef');
        await row.locator('[data-test=test-channel]').click();
        await waitForText(adminPage, 'tr[data-channel=browser-added] [data-test=test-result]', 'OK');
        await screenshot(adminPage, `${options.artifacts}/channels`);
        await row.locator('[data-test=toggle-channel]').click();
        await waitForText(adminPage, 'tr[data-channel=browser-added]', 'Disabled');

        await adminPage.click('a[href="/admin/users"]');
        const userRow = adminPage.locator(`tr[data-user="${USER.email}"]`);
        await userRow.locator('[data-test=toggle-user]').click();
        // Asked first: a disable signs the user out and refuses their keys.
        await adminPage.click('.dialog[open] [data-test=confirm]');
        await waitForText(adminPage, `tr[data-user="${USER.email}"]`, 'Disabled');
        await screenshot(adminPage, `${options.artifacts}/users`);
        await page.click('a[href="/overview"]');
        await page.waitForURL('**/sign-in?**');
        await userRow.locator('[data-test=toggle-user]').click();
        await adminPage.click('.dialog[open] [data-test=confirm]');
        await waitForText(adminPage, `tr[data-user="${USER.email}"]`, 'Active');
        await adminPage.click('[data-test=sign-out]');
        await adminPage.waitForURL('**/sign-in?signedOut=1');
        expect(await adminPage.textContent('[data-test=notice]')).toMatch(/signed out/);
        await adminPage.goto('/admin/users');
        await adminPage.waitForURL('**/sign-in?redirect=**');
      } finally {
        await admin.close();
      }
    });

    it('works at phone width, in Chinese from the browser, switchable to English, by keyboard', async () => {
      const phone = await track(
        openPage(browser, harness.baseUrl, {
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          locale: 'zh-CN',
        }),
      );
      try {
        const { page: phonePage } = phone;
        await phonePage.goto('/sign-in');
        await phonePage.waitForSelector('h1');
        expect(await phonePage.textContent('h1')).toBe('登录');
        // Keyboard only: the email field has the focus; Tab to the password, Enter submits.
        await phonePage.keyboard.type(USER.email);
        await phonePage.keyboard.press('Tab');
        await phonePage.keyboard.type(USER.password);
        await phonePage.keyboard.press('Enter');
        await phonePage.waitForURL('**/overview');
        // Four answered calls and the one refused for the revoked key, which is the user's too.
        await waitForText(phonePage, '[data-stat=calls] .stat-value', '5');
        await screenshot(phonePage, `${options.artifacts}/phone-overview-zh`);
        await phonePage.click('[data-test=menu]');
        await phonePage.waitForSelector('.nav-open .sidebar');
        await screenshot(phonePage, `${options.artifacts}/phone-menu-zh`, { fullPage: false });
        await phonePage.click('.sidebar a[href="/tokens"]');
        await phonePage.waitForSelector('[data-test=tokens-table]');
        await screenshot(phonePage, `${options.artifacts}/phone-tokens-zh`);
        await phonePage.click('[data-test=menu]');
        await phonePage.click('.sidebar a[href="/logs"]');
        await phonePage.waitForSelector('[data-test=log-table]');
        await screenshot(phonePage, `${options.artifacts}/phone-usage-log-zh`);
        const width = await phonePage.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(390);

        await phonePage.selectOption('[data-test=locale]', 'en');
        await waitForText(phonePage, 'h1', 'Usage log');
        await phonePage.reload();
        await waitForText(phonePage, 'h1', 'Usage log');
        expect(await phonePage.evaluate(() => document.documentElement.lang)).toBe('en');
      } finally {
        await phone.close();
      }
    });

    it('raised no script errors and no CSP violations on any page', () => {
      expect(opened.flatMap((each) => each.errors)).toEqual([]);
    });
  });
}
