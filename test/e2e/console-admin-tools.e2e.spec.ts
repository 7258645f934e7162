/**
 * The console's smaller promises in Chromium: a refused input reads in the
 * page's language; a too-long key name is named, not cut; a key expiring in the past is warned about;
 * the tab title follows a language switch at once; the top keys show values and mark revoked keys; a
 * channel test that cannot reach its upstream says so in words, "Test all" tests every channel, each
 * channel shows its last 24 hours and where it comes from; the users page searches, pages, adds a user
 * with a temporary password, resets one and asks before a role change; the usage log shows seconds,
 * finds part of a model name, filters by error type, streaming and endpoint, and shows admins each
 * request's user. Screenshots in test/artifacts/admin/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import type { Harness } from '../support/gateway-harness.ts';
import {
  type ConsolePage,
  clearArtifacts,
  launchBrowser,
  openPage,
  screenshot,
  waitForText,
} from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const ARTIFACTS = 'admin';
const USERS = 22;

let harness: Harness;
let browser: Browser;
const opened: ConsolePage[] = [];

async function chat(apiKey: string, model: string): Promise<number> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  clearArtifacts(ARTIFACTS);
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  harness = await startHarness({ environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  const admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', ADMIN);
  for (let index = 0; index < USERS; index++) {
    const created = await admin.call('POST', '/api/users', {
      email: `member-${String(index).padStart(2, '0')}@example.com`,
    });
    expect(created.status).toBe(201);
  }
  // A channel whose upstream nobody listens on (port 9, discard, is closed on loopback).
  const unreachable = await admin.call('POST', '/api/channels', {
    name: 'nowhere',
    type: 'openai',
    base_url: 'http://127.0.0.1:9/v1',
    api_key: 'upstream-key-nowhere-0123456789',
    models: ['nowhere-model'],
    priority: -5,
  });
  expect(unreachable.status).toBe(201);
  const { key } = await admin.createToken('busy key');
  const old = await admin.createToken('old key');
  expect(await chat(key, 'gpt-4o-mini')).toBe(200);
  expect(await chat(key, 'gpt-4o-mini')).toBe(200);
  expect(await chat(old.key, 'gpt-4o-mini')).toBe(200);
  expect(await chat(key, 'no-such-model-3')).toBe(404);
  expect((await admin.call('DELETE', `/api/tokens/${old.id}`)).status).toBe(200);
  // Another user's call, for the admin's user column.
  const member = new ConsoleClient(harness.baseUrl);
  await member.register('caller@example.com');
  expect(await chat((await member.createToken('caller key')).key, 'claude-sonnet-4-5')).toBe(200);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

async function open(options: Parameters<typeof openPage>[2] = {}): Promise<Page> {
  const consolePage = await openPage(browser, harness.baseUrl, options);
  opened.push(consolePage);
  return consolePage.page;
}

async function signInAsAdmin(page: Page): Promise<void> {
  await page.goto('/sign-in');
  await page.fill('input[type=email]', ADMIN.email);
  await page.fill('input[type=password]', ADMIN.password);
  await page.click('button[type=submit]');
  await page.waitForURL('**/overview');
}

describe('messages in the page’s language', () => {
  it('says a refused password in Chinese beside its field, and retitles the tab when the language changes', async () => {
    const page = await open({ locale: 'zh-CN' });
    await page.goto('/sign-up');
    await page.fill('input[type=email]', 'short@example.com');
    await page.fill('input[autocomplete=new-password]', 'short');
    await page.click('button[type=submit]');
    await waitForText(page, '.field-error', '密码至少需要 8 个字符。');
    expect(await page.textContent('.field-error')).not.toContain('password');
    await screenshot(page, `${ARTIFACTS}/sign-up-refused-zh`);
    expect(await page.title()).toBe('注册 · LLM 网关');
    await page.selectOption('[data-test=locale]', 'en');
    // No navigation: the title follows the switch at once.
    await page.waitForFunction(() => document.title === 'Create account · LLM Gateway', undefined, { timeout: 2000 });
    expect(page.url()).toMatch(/\/sign-up$/);
  });
});

describe('creating a key', () => {
  it('names a 68-character name as too long instead of cutting it, and warns before a key that has expired', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await page.goto('/tokens');
    await page.click('[data-test=create-token]');
    const long = 'k'.repeat(68);
    await page.fill('[data-test=create-token-name]', long);
    expect(await page.inputValue('[data-test=create-token-name]')).toBe(long);
    await waitForText(page, '[data-test=create-token-form] .field-error', 'At most 64 characters fit; this is 68.');
    expect(await page.isDisabled('[data-test=create-token-submit]')).toBe(true);
    await page.fill('[data-test=create-token-name]', 'already over');
    await page.fill('[data-test=token-expires]', '2020-01-31');
    await waitForText(page, '[data-test=expired-warning]', 'This date has passed');
    expect(await page.textContent('[data-test=create-token-submit]')).toContain('Create it expired');
    await screenshot(page, `${ARTIFACTS}/tokens-expired-warning`, { fullPage: false });
    await page.click('[data-test=create-token-submit]');
    // Not copied: the dialog asks once more before it closes.
    await page.click('[data-test=key-done]');
    await page.waitForSelector('[data-test=not-copied-warning]');
    await page.click('[data-test=key-done]');
    await waitForText(page, 'tr[data-token="already over"]', 'Expired');
  });
});

describe('the overview', () => {
  it('shows each top key’s value and marks the revoked one, and keeps refused model names out of the share', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await waitForText(page, '[data-chart-summary=top-keys]', 'old key (revoked)');
    const topKeys = (await page.textContent('[data-chart-summary=top-keys]')) ?? '';
    expect(topKeys).toMatch(/busy key \$?[\d.,]+/);
    expect(await page.textContent('[data-chart-summary=share]')).not.toContain('no-such-model');
    await screenshot(page, `${ARTIFACTS}/overview-top-keys`);
  });
});

describe('channels', () => {
  it('tests every channel, says an unreachable upstream in words, and shows each one’s day and source', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await page.goto('/admin/channels');
    await page.waitForSelector('[data-test=channels-table]');
    const rows = await page.locator('[data-test=channels-table] tbody tr').count();
    expect(rows).toBeGreaterThanOrEqual(2);
    // The harness's channels come from its GATEWAY_CONFIG file; the one added here does not.
    expect(await page.locator('[data-test=channel-source]').count()).toBe(rows - 1);
    expect(await page.locator('tr[data-channel=nowhere] [data-test=channel-source]').count()).toBe(0);
    expect(await page.textContent('[data-test=channels-table]')).toMatch(
      /Last 24 h: 1 call · .*Last 24 h: [2-9]\d* calls · /,
    );
    await page.click('[data-test=test-all]');
    await page.waitForFunction((count) => document.querySelectorAll('[data-test=test-result]').length === count, rows, {
      timeout: 20_000,
    });
    const nowhere = (await page.textContent('tr[data-channel=nowhere] [data-test=test-result]')) ?? '';
    expect(nowhere).toContain('Could not reach the upstream');
    expect(nowhere).not.toMatch(/Failed \(0\)/);
    expect(await page.locator('[data-test=test-result].ok').count()).toBeGreaterThan(0);
    await screenshot(page, `${ARTIFACTS}/channels-tested`);
  });
});

describe('users', () => {
  it('searches, pages by 20, adds a user with a password shown once, resets it, and asks before a role change', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await page.goto('/admin/users');
    await page.waitForSelector('[data-test=users-table]');
    // The admin, the caller and the members: two pages.
    await waitForText(page, '[data-test=users-page]', 'Page 1 of 2');
    expect(await page.locator('[data-test=users-table] tbody tr').count()).toBe(20);
    await page.click('[data-test=users-next]');
    await waitForText(page, '[data-test=users-page]', 'Page 2 of 2');
    expect(await page.locator('[data-test=users-table] tbody tr').count()).toBe(USERS + 2 - 20);
    await page.fill('[data-test=users-search]', 'member-07');
    await page.waitForFunction(() => document.querySelectorAll('[data-test=users-table] tbody tr').length === 1);
    expect(await page.locator('[data-test=users-page]').count()).toBe(0);

    await page.click('[data-test=create-user]');
    await page.fill('[data-test=new-user-email]', 'newcomer@example.com');
    await page.click('[data-test=create-user-submit]');
    const issued = await page.locator('[data-test=temporary-password]').inputValue();
    expect(issued.length).toBeGreaterThanOrEqual(12);
    await screenshot(page, `${ARTIFACTS}/users-temporary-password`, { fullPage: false });
    await page.click('[data-test=password-done]');
    const newcomer = new ConsoleClient(harness.baseUrl);
    expect(
      (await newcomer.call('POST', '/api/auth/login', { email: 'newcomer@example.com', password: issued })).status,
    ).toBe(200);

    await page.fill('[data-test=users-search]', 'newcomer');
    const row = 'tr[data-user="newcomer@example.com"]';
    await page.click(`${row} [data-test=reset-password]`);
    await page.click('.dialog[open] [data-test=confirm]');
    const reset = await page.locator('[data-test=temporary-password]').inputValue();
    expect(reset).not.toBe(issued);
    await page.click('[data-test=password-done]');
    expect(
      (await newcomer.call('POST', '/api/auth/login', { email: 'newcomer@example.com', password: reset })).status,
    ).toBe(200);

    // A role change is asked first; cancelled, the select shows the stored role again.
    await page.selectOption(`${row} [data-test=role]`, 'admin');
    await page.waitForSelector('.dialog[open] [data-test=confirm]');
    expect(await page.textContent('.dialog[open]')).toContain('newcomer@example.com becomes Administrator');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.dialog[open]', { state: 'detached' });
    expect(await page.inputValue(`${row} [data-test=role]`)).toBe('user');
  });
});

describe('the usage log for an admin', () => {
  it('shows seconds with the full time on hover, each request’s user, and finds part of a model name', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await page.goto('/logs');
    await page.waitForSelector('[data-test=log-table]');
    const time = page.locator('[data-test=time] >> nth=0');
    expect(await time.textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(await time.getAttribute('title')).toMatch(/\d{4}.*\d{1,2}:\d{2}:\d{2}/);
    await page.selectOption('[data-test=scope]', 'all').catch(() => undefined);
    await page.fill('[data-test=filter-model]', 'MINI');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-test=log-table] tbody tr')];
      return rows.length > 0 && rows.every((row) => row.textContent?.includes('gpt-4o-mini'));
    });
    expect(await page.locator('[data-test=log-table] [data-test=user] >> nth=0').textContent()).toContain(
      '@example.com',
    );
    await screenshot(page, `${ARTIFACTS}/logs-model-filter`);
  });

  it('filters by error type, streaming and endpoint', async () => {
    const page = await open();
    await signInAsAdmin(page);
    await page.goto('/logs');
    await page.waitForSelector('[data-test=log-table]');
    await page.selectOption('[data-test=scope]', 'all').catch(() => undefined);
    await page.fill('[data-test=filter-error-type]', 'model_not_found');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-test=log-table] tbody tr')];
      return rows.length === 1 && rows[0]!.textContent?.includes('no-such-model-3');
    });
    await page.fill('[data-test=filter-error-type]', '');
    await page.selectOption('[data-test=filter-endpoint]', 'chat.completions');
    await page.selectOption('[data-test=filter-streamed]', 'false');
    await page.waitForFunction(() => document.querySelectorAll('[data-test=log-table] tbody tr').length >= 5);
    // Every request here was a chat completion answered whole: none streamed, none on messages.
    await page.selectOption('[data-test=filter-streamed]', 'true');
    await waitForText(page, 'body', 'No requests match these filters.');
    await page.selectOption('[data-test=filter-streamed]', '');
    await page.selectOption('[data-test=filter-endpoint]', 'messages');
    await waitForText(page, 'body', 'No requests match these filters.');
    await screenshot(page, `${ARTIFACTS}/logs-kind-filters`);
  });
});

it('raised no script errors on any page', () => {
  expect(opened.flatMap((each) => each.errors)).toEqual([]);
});
