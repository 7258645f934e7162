/**
 * The API keys page with real content in Chromium: the table fits a 1440 px screen with long budgets,
 * limits and model lists, and stays unscrolled after a revoke; the phone layout still fits 360 px.
 * Screenshots in test/artifacts/keys/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import type { Harness } from '../support/gateway-harness.ts';
import { type ConsolePage, clearArtifacts, launchBrowser, openPage, screenshot } from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const USER = { email: 'keys@example.com', password: 'correct horse battery' };
const ADMIN = { email: 'keys-admin@example.com', password: 'admin password 1' };
/** A person whose account budget (not a key's) is spent. */
const SPENDER = { email: 'spender@example.com', password: 'another horse battery' };
const ARTIFACTS = 'keys';
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 360, height: 740 };

let harness: Harness;
let browser: Browser;
let client: ConsoleClient;
let spentKey: string;
let spenderKey: string;
const opened: ConsolePage[] = [];

async function chat(apiKey: string): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code };
}

beforeAll(async () => {
  clearArtifacts(ARTIFACTS);
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  // A dear price, so that one call spends more than the budget set after it.
  harness = await startHarness({
    environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
    configLines: ['prices:', '  gpt-4o-mini: { input_per_million: 100, output_per_million: 200 }'],
  });
  client = new ConsoleClient(harness.baseUrl);
  await client.register(USER.email, USER.password);
  await client.createToken('nightly evaluation pipeline on the shared build runners', {
    models: ['gpt-4o-mini', 'claude-sonnet-4-5'],
    rpm_limit: 600,
    tpm_limit: 100_000,
    ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'],
    quota: 5_000_000,
    budget_usd: 25,
    budget_period: 'monthly',
    expires_at: new Date(Date.now() + 300 * 86_400_000).toISOString(),
  });
  const spent = await client.createToken('spent key', { rpm_limit: 600 });
  spentKey = spent.key;
  expect((await chat(spent.key)).status).toBe(200);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  expect((await client.call('PATCH', `/api/tokens/${spent.id}`, { budget_usd: 0.002 })).status).toBe(200);
  for (const name of ['to revoke (en)', 'to revoke (zh)', 'laptop', 'ci']) await client.createToken(name);
  // The newest key, first in the server's order: revoked, it must still sort after the active ones.
  const old = await client.createToken('revoked last week');
  expect((await client.call('DELETE', `/api/tokens/${old.id}`)).status).toBe(200);
  // The account's budget, set by an administrator after its first call, is spent; its key's own is not.
  const spender = new ConsoleClient(harness.baseUrl);
  await spender.register(SPENDER.email, SPENDER.password);
  spenderKey = (await spender.createToken('my only key')).key;
  expect((await chat(spenderKey)).status).toBe(200);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  const admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', ADMIN);
  const spenderId = (await spender.call('GET', '/api/me')).body.id;
  const budget = { budget_usd: 0.002, budget_period: 'total' };
  expect((await admin.call('PATCH', `/api/users/${spenderId}`, budget)).status).toBe(200);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

async function open(options: Parameters<typeof openPage>[2] = {}, person = USER): Promise<Page> {
  const consolePage = await openPage(browser, harness.baseUrl, options);
  opened.push(consolePage);
  const { page } = consolePage;
  await page.goto('/sign-in');
  await page.fill('input[type=email]', person.email);
  await page.fill('input[type=password]', person.password);
  await page.click('button[type=submit]');
  await page.waitForURL('**/overview');
  await page.goto('/tokens');
  await page.waitForSelector('[data-test=tokens-table]');
  return page;
}

/** How the keys table sits in its box: sideways scroll, and rows whose last button or name is cut. */
function tableFit(page: Page) {
  return page.evaluate(() => {
    const wrap = document.querySelector('.table-wrap')!;
    const box = wrap.getBoundingClientRect();
    const rows = [...wrap.querySelectorAll('tbody tr')];
    return {
      scrollable: wrap.scrollWidth - wrap.clientWidth,
      scrolled: wrap.scrollLeft,
      pageScrollable: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      cutButtons: rows.flatMap((row) =>
        [...row.querySelectorAll('button')]
          .filter((button) => button.getBoundingClientRect().right > box.right + 0.5)
          .map((button) => `${row.getAttribute('data-token')}: ${button.textContent?.trim()}`),
      ),
      cutNames: rows
        .map((row) => row.querySelector('td')!)
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
        .map((cell) => cell.textContent),
    };
  });
}

const fits = { scrollable: 0, scrolled: 0, pageScrollable: 0, cutButtons: [], cutNames: [] };

describe('the keys table', () => {
  for (const [language, locale] of [
    ['en', 'en-US'],
    ['zh', 'zh-CN'],
  ] as const) {
    it(`fits a 1440 px screen with real content, before and after a revoke (${language})`, async () => {
      const page = await open({ viewport: DESKTOP, locale });
      expect(await tableFit(page)).toEqual(fits);
      await screenshot(page, `${ARTIFACTS}/desktop-${language}-tokens`);
      const row = `tr[data-token="to revoke (${language})"]`;
      await page.click(`${row} [data-test=revoke]`);
      await page.click('.dialog[open] [data-test=confirm]');
      await page.waitForSelector('.dialog[open]', { state: 'detached' });
      expect(await tableFit(page)).toEqual(fits);
      await screenshot(page, `${ARTIFACTS}/desktop-${language}-tokens-revoked`);
    });

    it(`keeps the phone layout: cards, nothing wider than 360 px (${language})`, async () => {
      const page = await open({ viewport: PHONE, locale });
      const { pageScrollable } = await tableFit(page);
      expect(pageScrollable).toBe(0);
      expect(await page.locator('[data-test=tokens-table] thead').isVisible()).toBe(false);
      await screenshot(page, `${ARTIFACTS}/phone-${language}-tokens`);
    });
  }
});

describe('key statuses', () => {
  it('says “Budget spent” of a key whose budget is spent, which the gateway refuses with budget_exceeded', async () => {
    expect(await chat(spentKey)).toEqual({ status: 429, code: 'budget_exceeded' });
    const page = await open({ viewport: DESKTOP });
    expect(await page.textContent('tr[data-token="spent key"] .badge')).toBe('Budget spent');
    expect(await page.getAttribute('tr[data-token="spent key"] .badge', 'class')).toContain('badge-warn');
  });

  it('says “Budget spent” of a key whose account budget is spent, which the gateway refuses too', async () => {
    expect(await chat(spenderKey)).toEqual({ status: 429, code: 'budget_exceeded' });
    const page = await open({ viewport: DESKTOP }, SPENDER);
    expect(await page.textContent('tr[data-token="my only key"] .badge')).toBe('Budget spent');
  });

  it('hides revoked keys unless asked, and then lists them after the active ones', async () => {
    const page = await open({ viewport: DESKTOP });
    const names = () =>
      page
        .locator('[data-test=tokens-table] tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => `${row.getAttribute('data-token')}: ${row.querySelector('.badge')?.textContent}`),
        );
    expect(await page.isChecked('[data-test=hide-revoked]')).toBe(true);
    expect((await names()).filter((name) => name.endsWith('Revoked'))).toEqual([]);
    expect(await page.textContent('[data-test=revoked-count]')).toContain('3');
    await page.uncheck('[data-test=hide-revoked]');
    const all = await names();
    const firstRevoked = all.findIndex((name) => name.endsWith('Revoked'));
    expect(all.slice(firstRevoked).every((name) => name.endsWith('Revoked'))).toBe(true);
    expect(all.slice(firstRevoked)).toContain('revoked last week: Revoked');
    expect(firstRevoked).toBeGreaterThan(0);
    await screenshot(page, `${ARTIFACTS}/desktop-en-tokens-with-revoked`);
  });
});

describe('the gateway’s own refusals in the usage log', () => {
  it('says a refusal in the page’s language by its code, the raw code and message in the details', async () => {
    // After the budget test above: the spent key's call was refused with budget_exceeded.
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();
    const page = await open({ viewport: DESKTOP, locale: 'zh-CN' });
    await page.goto('/logs');
    await page.waitForSelector('[data-test=log-table]');
    const refused = page
      .locator('[data-test=log-table] tbody tr')
      .filter({ has: page.locator('[data-test=status] .badge', { hasText: /^429$/ }) });
    expect(await refused.count()).toBe(1);
    const status = (await refused.locator('[data-test=status]').textContent()) ?? '';
    expect(status).toContain('此密钥本周期的预算已用完');
    expect(status).not.toContain('budget_exceeded');
    expect(status).not.toMatch(/budget of \$/);
    await screenshot(page, `${ARTIFACTS}/desktop-zh-logs-refusal`);
    await refused.locator('[data-test=open-details]').click();
    await page.waitForSelector('[data-test=log-details]');
    expect(await page.textContent('[data-test=detail-status]')).toContain('此密钥本周期的预算已用完');
    expect(await page.textContent('[data-test=detail-status]')).toContain('budget_exceeded');
    expect(await page.textContent('[data-test=detail-error]')).toContain("This API key's total budget");
  });
});

describe('where to point a client', () => {
  it('shows the base URL and a first snippet per client with the new key, each with a Copy button', async () => {
    const page = await open({ viewport: DESKTOP });
    await page.click('[data-test=create-token]');
    await page.fill('[data-test=create-token-name]', 'codex on the laptop');
    await page.click('[data-test=create-token-submit]');
    const key = await page.locator('[data-test=new-key]').inputValue();
    const setup = page.locator('.dialog[open] [data-test=client-setup]');
    expect(await setup.locator('[data-test=base-url]').inputValue()).toBe(harness.baseUrl);
    const clients = await setup.locator('[role=tab]').allTextContents();
    expect(clients).toEqual(['OpenAI', 'Anthropic', 'Gemini', 'Claude Code', 'Codex', 'Gemini CLI']);
    const snippets: Record<string, string> = {};
    for (const client of clients) {
      await setup.locator('[role=tab]', { hasText: new RegExp(`^${client}$`) }).click();
      snippets[client] = (await setup.locator('[data-test=snippet]').textContent()) ?? '';
    }
    expect(snippets['OpenAI']).toContain(`curl ${harness.baseUrl}/v1/chat/completions`);
    expect(snippets['OpenAI']).toContain(`Authorization: Bearer ${key}`);
    expect(snippets['Anthropic']).toContain(`${harness.baseUrl}/v1/messages`);
    expect(snippets['Gemini']).toContain(`${harness.baseUrl}/v1beta/models/`);
    expect(snippets['Claude Code']).toContain(`ANTHROPIC_BASE_URL=${harness.baseUrl}`);
    expect(snippets['Codex']).toContain('wire_api = "responses"');
    expect(snippets['Codex']).toContain(`base_url = "${harness.baseUrl}/v1"`);
    expect(snippets['Gemini CLI']).toContain(`GOOGLE_GEMINI_BASE_URL=${harness.baseUrl}`);
    // The OpenAI snippet, run as written, is answered.
    const curl = snippets['OpenAI']!;
    const body = curl.slice(curl.indexOf("-d '") + 4, curl.lastIndexOf("'"));
    const answer = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(200);
    await setup.locator('[role=tab]', { hasText: /^Codex$/ }).click();
    await setup.locator('[data-test=copy-snippet]').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippets['Codex']);
    await screenshot(page, `${ARTIFACTS}/desktop-en-new-key`, { fullPage: false });
    await page.click('[data-test=key-done]');
    await page.waitForSelector('.dialog[open]', { state: 'detached' });
    // The keys page says the same, with a placeholder for the key.
    await page.click('[data-test=show-client-setup]');
    expect(await page.locator('[data-test=client-setup] [data-test=base-url]').inputValue()).toBe(harness.baseUrl);
    expect(await page.textContent('[data-test=client-setup] [data-test=snippet]')).not.toContain(key);
  });
});

describe('by keyboard, and before a key is lost', () => {
  it('asks once more before closing the new key unread, and closes on the second ask', async () => {
    const page = await open({ viewport: DESKTOP });
    await page.click('[data-test=create-token]');
    await page.fill('[data-test=create-token-name]', 'never copied');
    await page.click('[data-test=create-token-submit]');
    await page.waitForSelector('[data-test=new-key]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-test=not-copied-warning]');
    expect(await page.isVisible('[data-test=new-key]')).toBe(true);
    expect(await page.textContent('[data-test=key-done]')).toContain('Close without copying');
    await page.click('[data-test=key-done]');
    await page.waitForSelector('.dialog[open]', { state: 'detached' });
  });

  it('moves the focus to the next key after a revoke by keyboard, not to the page', async () => {
    const page = await open({ viewport: DESKTOP });
    await page.focus('tr[data-token="never copied"] [data-test=revoke]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.dialog[open] [data-test=confirm]');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('tr[data-token="never copied"]', { state: 'detached' });
    await page.waitForFunction(() => document.activeElement !== document.body);
    const focused = await page.evaluate(() => ({
      test: document.activeElement?.getAttribute('data-test'),
      row: document.activeElement?.closest('tr')?.getAttribute('data-token'),
    }));
    expect(focused.test).toBe('edit');
    expect(focused.row).toBeTruthy();
  });
});

it('raised no script errors on any page', () => {
  expect(opened.flatMap((each) => each.errors)).toEqual([]);
});
