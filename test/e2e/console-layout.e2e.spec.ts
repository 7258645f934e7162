/**
 * Every console page at phone width (360 px) and on a desktop (1440 × 900), in English and Chinese,
 * with real traffic in the usage log: no page scrolls sideways at 360 px (the range picker was 453 px
 * wide at 390), and a request is found in the log by the X-Request-Id its caller sent. Screenshots of
 * each page, size and language go to test/artifacts/layout/.
 */
import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/gateway-harness.ts';
import {
  ARTIFACTS as ARTIFACTS_ROOT,
  clearArtifacts,
  launchBrowser,
  openPage,
  screenshot,
  waitForText,
} from './support/browser.ts';
import { buildConsole } from './support/build-console.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const ARTIFACTS = 'layout';
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1440, height: 900 };
const signedOutPages = ['/sign-in', '/sign-up'];
const signedInPages = [
  '/overview',
  '/logs',
  '/sessions',
  '/tokens',
  '/models',
  '/account',
  '/admin/channels',
  '/admin/users',
  '/no-such-page',
];

let harness: Harness;
let browser: Browser;

async function chat(apiKey: string, model: string, requestId: string): Promise<number> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
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
  const { ConsoleClient } = await import('../support/console-client.ts');
  const admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', ADMIN);
  const { key } = await admin.createToken('a key with a rather long name for a phone screen');
  for (let index = 0; index < 6; index++) expect(await chat(key, 'gpt-4o-mini', `layout-trace-${index}`)).toBe(200);
  expect(await chat(key, 'claude-sonnet-4-5', 'layout-trace-sonnet')).toBe(200);
  expect(await chat(key, 'no-such-model', 'layout-trace-refused')).toBe(404);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

/** A GET with the given Accept-Encoding, its body as sent (fetch would hide the encoding). */
function headersOf(
  file: string,
  acceptEncoding: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${harness.baseUrl}${file}`, { headers: { 'accept-encoding': acceptEncoding } }, (message) => {
      const chunks: Buffer[] = [];
      message.on('data', (chunk: Buffer) => chunks.push(chunk));
      message.on('end', () =>
        resolve({ status: message.statusCode ?? 0, headers: message.headers, body: Buffer.concat(chunks) }),
      );
    }).on('error', reject);
  });
}

it('serves the built console precompressed (brotli, else gzip), its hashed assets cached for a year', async () => {
  const index = await (await fetch(`${harness.baseUrl}/overview`)).text();
  const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  expect(assets.length).toBeGreaterThan(0);
  for (const asset of assets) {
    const { status, headers, body } = await headersOf(asset, 'gzip, deflate, br');
    expect({ asset, status, encoding: headers['content-encoding'], cache: headers['cache-control'] }).toEqual({
      asset,
      status: 200,
      encoding: 'br',
      cache: 'public, max-age=31536000, immutable',
    });
    // The compressed copy is the file served to a browser that takes no compression, byte for byte.
    const plain = await headersOf(asset, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotliDecompressSync(body).equals(plain.body)).toBe(true);
    // A client without brotli gets the gzip copy, the same bytes once unpacked.
    const gzipped = await headersOf(asset, 'gzip, deflate');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(String(gzipped.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    expect(gzipped.body.length).toBeLessThan(plain.body.length);
  }
  expect((await headersOf('/overview', 'br')).headers['cache-control']).toBe('no-cache');
});

/** How far the page scrolls sideways, and the widest elements when it does (for the failure message). */
async function overflow(page: Page): Promise<{ excess: number; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const excess = root.scrollWidth - root.clientWidth;
    const culprits =
      excess <= 0
        ? []
        : [...document.querySelectorAll('body *')]
            .filter(
              (element) =>
                element.getBoundingClientRect().right > root.clientWidth + 1 ||
                element.scrollWidth > element.clientWidth + 1,
            )
            .slice(0, 5)
            .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}`);
    return { excess, culprits };
  });
}

async function settled(page: Page): Promise<void> {
  await page.waitForSelector('h1');
  await page.waitForLoadState('networkidle');
}

for (const [language, locale] of [
  ['en', 'en-US'],
  ['zh', 'zh-CN'],
] as const) {
  describe(`the console's layout (${language})`, () => {
    it('fits every page in 360 px without scrolling sideways, and keeps a screenshot of each', {
      timeout: 180_000,
    }, async () => {
      for (const [size, viewport] of [
        ['phone', PHONE],
        ['desktop', DESKTOP],
      ] as const) {
        const { page, errors, close } = await openPage(browser, harness.baseUrl, { viewport, locale });
        const overflows: Array<{ path: string; excess: number; culprits: string[] }> = [];
        for (const path of signedOutPages) {
          await page.goto(path);
          await settled(page);
          if (size === 'phone') overflows.push({ path, ...(await overflow(page)) });
          await screenshot(page, `${ARTIFACTS}/${size}-${language}${path.replaceAll('/', '-')}`);
        }
        await page.goto('/sign-in');
        await page.fill('input[type=email]', ADMIN.email);
        await page.fill('input[type=password]', ADMIN.password);
        await page.click('button[type=submit]');
        await page.waitForURL('**/overview');
        for (const path of signedInPages) {
          await page.goto(path);
          await settled(page);
          // The models page lists what the channels serve, each with a price or its absence.
          if (path === '/models') await page.waitForSelector('[data-model="gpt-4o-mini"]');
          // The custom range shows two date inputs: the widest the picker gets.
          if (path === '/overview' || path === '/logs') await page.click('label:has(input[data-range=custom])');
          if (size === 'phone') overflows.push({ path, ...(await overflow(page)) });
          await screenshot(page, `${ARTIFACTS}/${size}-${language}${path.replaceAll('/', '-')}`);
          // Each chart of a phone's overview on its own, at full size: a scaled page hides cut labels.
          if (path === '/overview' && size === 'phone') {
            const charts = page.locator('.chart-card');
            for (let index = 0; index < (await charts.count()); index++) {
              await charts
                .nth(index)
                .screenshot({ path: `${ARTIFACTS_ROOT}/${ARTIFACTS}/phone-${language}-chart-${index + 1}.png` });
            }
          }
        }
        expect(overflows.filter((found) => found.excess > 0)).toEqual([]);
        expect(errors).toEqual([]);
        await close();
      }
    });

    it('finds a request by the X-Request-Id its caller sent, and shows it in full', { timeout: 60_000 }, async () => {
      const { page, close } = await openPage(browser, harness.baseUrl, { viewport: PHONE, locale });
      await page.goto('/sign-in');
      await page.fill('input[type=email]', ADMIN.email);
      await page.fill('input[type=password]', ADMIN.password);
      await page.click('button[type=submit]');
      await page.waitForURL('**/overview');
      await page.goto('/logs');
      await waitForText(page, '[data-test=log-total]', '8');
      await page.fill('[data-test=filter-request-id]', 'layout-trace-refused');
      await waitForText(page, '[data-test=log-total]', '1');
      expect(await page.locator('[data-test=log-table] tbody tr').count()).toBe(1);
      await page.click('[data-test=open-details]');
      await page.waitForSelector('[data-test=log-details]');
      expect(await page.textContent('[data-test=detail-error]')).toContain('no-such-model');
      expect(await overflow(page)).toEqual({ excess: 0, culprits: [] });
      await screenshot(page, `${ARTIFACTS}/phone-${language}-log-details`, { fullPage: false });
      await close();
    });
  });
}
