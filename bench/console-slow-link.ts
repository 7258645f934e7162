/**
 * @module bench/console-slow-link
 * How long the overview takes to show its cards on a slow link (1.6 Mbit/s each way, 150 ms latency,
 * emulated by Chromium), with a cold cache: the console's files as the browser gets them now
 * (precompressed brotli), and as it got them before (uncompressed; the browser asks for `identity`).
 * Run: `npx tsx bench/console-slow-link.ts` (builds the console first when its sources changed).
 */
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../test/e2e/support/browser.ts';
import { buildConsole } from '../test/e2e/support/build-console.ts';

const LINK = { latency: 150, throughput: 1_600_000 / 8 };
const RUNS = 3;
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };

interface Load {
  ms: number;
  transferredBytes: number;
}

async function loadOverview(browser: Browser, baseUrl: string, compressed: boolean): Promise<Load> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  // Signed in at full speed: only the overview's own load is measured.
  await page.goto('/sign-in');
  await page.fill('input[type=email]', ADMIN.email);
  await page.fill('input[type=password]', ADMIN.password);
  await page.click('button[type=submit]');
  await page.waitForURL('**/overview').catch(async (error) => {
    await page.screenshot({ path: '/tmp/console-slow-link-failure.png' });
    throw error;
  });
  await page.goto('about:blank');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: LINK.latency,
    downloadThroughput: LINK.throughput,
    uploadThroughput: LINK.throughput,
  });
  if (!compressed) await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': 'identity' } });
  let transferredBytes = 0;
  cdp.on('Network.loadingFinished', (event) => {
    transferredBytes += event.encodedDataLength;
  });
  const started = Date.now();
  await page.goto('/overview');
  await page.waitForFunction(
    () => (document.querySelector('[data-stat=calls] .stat-value')?.textContent ?? '').trim() !== '',
    undefined,
    { timeout: 60_000 },
  );
  const ms = Date.now() - started;
  await context.close();
  return { ms, transferredBytes };
}

const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  await buildConsole();
  const { startHarness } = await import('../test/support/gateway-harness.ts');
  const harness = await startHarness({ environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  const browser = await launchBrowser();
  try {
    for (const compressed of [false, true]) {
      const loads: Load[] = [];
      for (let run = 0; run < RUNS; run++) loads.push(await loadOverview(browser, harness.baseUrl, compressed));
      console.log(
        `${compressed ? 'precompressed (br)' : 'uncompressed      '}: cards after ${median(loads.map((load) => load.ms))} ms (median of ${RUNS}: ${loads.map((load) => load.ms).join(', ')}), ${Math.round(median(loads.map((load) => load.transferredBytes)) / 1024)} KB transferred`,
      );
    }
  } finally {
    await browser.close();
    await harness.stop();
  }
}

await main();
