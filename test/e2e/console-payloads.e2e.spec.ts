/**
 * A request's captured body and reply in the usage log's row detail, in Chromium: the conversation
 * (the user's message and the assistant's reply) and, on its tab, the raw JSON of both sides.
 * Screenshots in test/artifacts/payloads/.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relay } from '../support/captured-payloads.ts';
import { ConsoleClient } from '../support/console-client.ts';
import type { Harness } from '../support/gateway-harness.ts';
import { clearArtifacts, launchBrowser, openPage, screenshot } from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const USER = { email: 'payloads@example.com', password: 'correct horse battery' };
const ARTIFACTS = 'payloads';
const QUESTION = 'Which planet has the most moons? E2E-PAYLOAD-MARKER';

let harness: Harness;
let browser: Browser;
let reply: { choices: Array<{ message: { content: string } }> };

beforeAll(async () => {
  clearArtifacts(ARTIFACTS);
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  harness = await startHarness();
  const client = new ConsoleClient(harness.baseUrl);
  await client.register(USER.email, USER.password);
  const { key } = await client.createToken('captured', { payload_capture_days: 3 });
  const call = await relay(harness.baseUrl, key, QUESTION);
  expect(call.status).toBe(200);
  reply = JSON.parse(call.text);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

describe('the usage log row detail', () => {
  it('shows the captured conversation and the raw JSON of both sides', async () => {
    const { page } = await openPage(browser, harness.baseUrl, { viewport: { width: 1440, height: 900 } });
    await page.goto('/sign-in');
    await page.fill('input[type=email]', USER.email);
    await page.fill('input[type=password]', USER.password);
    await page.click('button[type=submit]');
    await page.waitForURL('**/overview');
    await page.goto('/logs');
    await page.waitForSelector('[data-test=log-table]');
    await page.locator('[data-test=log-table] tbody tr').first().locator('[data-test=open-details]').click();
    await page.waitForSelector('[data-test=turn]');
    const turns = page.locator('[data-test=turn]');
    expect(await turns.count()).toBe(2);
    expect(await turns.nth(0).textContent()).toContain(QUESTION);
    expect(await turns.nth(1).textContent()).toContain(reply.choices[0]!.message.content);
    await screenshot(page, `${ARTIFACTS}/conversation`);
    await page.click('[data-test=tab-raw]');
    expect(await page.textContent('[data-test=raw-request]')).toContain(QUESTION);
    expect(JSON.parse((await page.textContent('[data-test=raw-reply]')) ?? '')).toEqual(reply);
    await screenshot(page, `${ARTIFACTS}/raw`);
  });
});
