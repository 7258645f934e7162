/**
 * The overview in the browser's time zone, in Chromium with its zone set: a call at
 * 01:23 in Shanghai is shown under that Shanghai day, under the previous day in New York and in UTC,
 * and the page says which zone its days are in, with a switch to UTC; hourly labels over a week are dated.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import type { Harness } from '../support/gateway-harness.ts';
import { timeZoneTraffic } from '../support/time-zone-traffic.ts';
import { launchBrowser, openPage, waitForText } from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const USER = { email: 'zones@example.com', password: 'correct horse battery' };
const HOUR = 3_600_000;
// The latest 17:23 UTC (01:23 in Shanghai) at least an hour ago, so the 7-day range holds it.
const today = new Date();
today.setUTCHours(17, 23, 0, 0);
const call = today.getTime() > Date.now() - HOUR ? today.getTime() - 24 * HOUR : today.getTime();
const dayIn = (timeZone: string) =>
  new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone }).format(new Date(call));

let harness: Harness;
let browser: Browser;

beforeAll(async () => {
  await buildConsole();
  const { startHarness } = await import('../support/gateway-harness.ts');
  harness = await startHarness();
  const client = new ConsoleClient(harness.baseUrl);
  const user = await client.register(USER.email, USER.password);
  const token = await client.createToken('zones');
  harness.runtime.publisher.publish(...timeZoneTraffic(user.id, token.id, [new Date(call).toISOString()]));
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

describe('the overview in the browser’s time zone', () => {
  for (const timeZone of ['Asia/Shanghai', 'America/New_York']) {
    it(`labels the days in ${timeZone}, says so, and switches to UTC`, async () => {
      const opened = await openPage(browser, harness.baseUrl, { timezoneId: timeZone });
      const page = opened.page;
      try {
        await page.goto('/sign-in');
        await page.fill('input[type=email]', USER.email);
        await page.fill('input[type=password]', USER.password);
        await page.click('button[type=submit]');
        await page.waitForURL((url) => !url.pathname.includes('sign-in'));
        await page.goto('/');
        await page.check('input[data-range="7d"]');
        await page.selectOption('[data-test=granularity]', 'day');
        await waitForText(page, '[data-test=time-zone]', `Times in ${timeZone}`);
        await waitForText(page, '[data-chart-summary=calls]', `(${dayIn(timeZone)}: 1)`);
        await page.check('[data-test=utc]');
        await waitForText(page, '[data-test=time-zone]', 'Times in UTC');
        await waitForText(page, '[data-chart-summary=calls]', `(${dayIn('UTC')}: 1)`);
        // Hourly over a week: each hour's label carries its date, and the call is in the 17:00 UTC hour.
        await page.selectOption('[data-test=granularity]', 'hour');
        await waitForText(page, '[data-chart-summary=calls]', `(${dayIn('UTC')}, 05:00 PM: 1)`);
      } finally {
        await opened.close();
      }
    });
  }
});
