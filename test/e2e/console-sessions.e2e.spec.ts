/**
 * Sessions and attribution in the console, in Chromium: an agent's session (its requests sent with
 * x-gateway-session-id, one failing) is listed on the Sessions page and opens onto its timeline in
 * order, failure marked, in English and Chinese; the overview groups the usage by a metadata key;
 * the usage log filters by session. Screenshots in test/artifacts/sessions/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import type { Harness } from '../support/gateway-harness.ts';
import { type ConsolePage, clearArtifacts, launchBrowser, openPage, screenshot } from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const USER = { email: 'sessions@example.com', password: 'correct horse battery' };
const ARTIFACTS = 'sessions';
const DESKTOP = { width: 1440, height: 900 };

let harness: Harness;
let browser: Browser;
const opened: ConsolePage[] = [];

async function chat(key: string, headers: Record<string, string>, model = 'gpt-4o-mini'): Promise<number> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, user: 'alice', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.text();
  return response.status;
}

beforeAll(async () => {
  clearArtifacts(ARTIFACTS);
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  harness = await startHarness();
  const client = new ConsoleClient(harness.baseUrl);
  await client.register(USER.email, USER.password);
  const { key } = await client.createToken('agent', { metadata: { env: 'prod' } });
  const turn = { 'x-gateway-session-id': 'agent-run-7', 'x-gateway-metadata': '{"feature":"refactor"}' };
  expect(await chat(key, turn)).toBe(200);
  expect(await chat(key, turn, 'no-such-model')).toBe(404);
  expect(await chat(key, turn)).toBe(200);
  expect(await chat(key, { 'x-gateway-session-id': 'other-run', 'x-gateway-metadata': '{"feature":"review"}' })).toBe(
    200,
  );
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

async function open(locale: string, path: string): Promise<Page> {
  const consolePage = await openPage(browser, harness.baseUrl, { viewport: DESKTOP, locale });
  opened.push(consolePage);
  const { page } = consolePage;
  await page.goto('/sign-in');
  await page.fill('input[type=email]', USER.email);
  await page.fill('input[type=password]', USER.password);
  await page.click('button[type=submit]');
  await page.waitForURL('**/overview');
  await page.goto(path);
  return page;
}

describe('the sessions page', () => {
  for (const [language, locale, title] of [
    ['en', 'en-US', 'Sessions'],
    ['zh', 'zh-CN', '会话'],
  ] as const) {
    it(`lists the sessions and opens one onto its timeline, in order, the failure marked (${language})`, async () => {
      const page = await open(locale, '/sessions');
      await page.waitForSelector('[data-test=sessions-table]');
      expect(await page.locator('h1').textContent()).toBe(title);
      const sessions = await page
        .locator('tr[data-session]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session')));
      expect(sessions).toEqual(['other-run', 'agent-run-7']);
      await screenshot(page, `${ARTIFACTS}/${language}-sessions`);

      await page.click('tr[data-session="agent-run-7"] [data-test=open-session]');
      await page.waitForSelector('[data-test=timeline-row]');
      expect(await page.locator('[data-test=session-id]').textContent()).toBe('agent-run-7');
      const rows = page.locator('[data-test=timeline-row]');
      expect(await rows.count()).toBe(3);
      const texts = (await rows.allTextContents()).map((text) => text.trim());
      expect(texts[0]).toContain('gpt-4o-mini');
      expect(texts[1]).toContain('no-such-model');
      // The first request starts the session; the others are placed after it.
      expect(texts[0]).toMatch(/^\+0(\.0)? ?ms/);
      expect(texts[2]).toMatch(/^\+\d/);
      expect(await rows.nth(1).getAttribute('class')).toContain('failed');
      expect(await rows.nth(0).getAttribute('class')).not.toContain('failed');
      await screenshot(page, `${ARTIFACTS}/${language}-session-timeline`);
    });
  }
});

describe('attribution elsewhere in the console', () => {
  it('groups the overview by a metadata key', async () => {
    const page = await open('en-US', '/overview');
    await page.waitForSelector('[data-test=group-by]');
    await page.selectOption('[data-test=group-by]', 'metadata');
    await page.fill('[data-test=group-by-key]', 'feature');
    await page.waitForSelector('[data-test=usage-group]');
    const groups = await page.locator('[data-test=usage-group]').allTextContents();
    expect(groups.some((text) => text.includes('refactor') && text.includes('3'))).toBe(true);
    expect(groups.some((text) => text.includes('review'))).toBe(true);
    await screenshot(page, `${ARTIFACTS}/en-overview-by-feature`);
  });

  it('filters the usage log by session', async () => {
    const page = await open('en-US', '/logs');
    await page.waitForSelector('[data-test=log-table]');
    await page.fill('[data-test=filter-session]', 'other-run');
    await page.waitForFunction(() => document.querySelectorAll('[data-test=log-table] tbody tr').length === 1);
    expect(await page.locator('[data-test=log-table] tbody tr').count()).toBe(1);
  });
});
