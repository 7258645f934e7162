/**
 * @module test/e2e/support/browser
 * Debian's Chromium driven by playwright-core (its own browser download does not work here), pages
 * that record console errors and CSP reports, and screenshots under `test/artifacts/`.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { HEADLESS_CHROMIUM_FLAGS } from './chromium-flags.ts';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../artifacts');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}. Install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: HEADLESS_CHROMIUM_FLAGS,
  });
}

export interface ConsolePage {
  page: Page;
  /** console errors and uncaught exceptions, minus failed loads the test caused on purpose (401s) */
  errors: string[];
  close(): Promise<void>;
}

export async function openPage(
  browser: Browser,
  baseUrl: string,
  options: BrowserContextOptions = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({ baseURL: baseUrl, locale: 'en-US', ...options });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors, close: () => context.close() };
}

/** Starts a run with an empty artifacts folder, so every screenshot there is from this run. */
export function clearArtifacts(folder: string): void {
  rmSync(path.join(ARTIFACTS, folder), { recursive: true, force: true });
  mkdirSync(path.join(ARTIFACTS, folder), { recursive: true });
}

export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(path.dirname(path.join(ARTIFACTS, name)), { recursive: true });
  // Let charts finish their entry animation.
  await page.waitForTimeout(name.includes('overview') ? 900 : 150);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage });
}

/** Waits until the element's text contains the expected text. */
export async function waitForText(page: Page, selector: string, expected: string, timeout = 10_000): Promise<void> {
  try {
    await page.waitForFunction(
      ([css, text]) => document.querySelector(css as string)?.textContent?.includes(text as string) ?? false,
      [selector, expected],
      { timeout },
    );
  } catch (error) {
    const actual = await page.evaluate((css) => document.querySelector(css)?.textContent ?? null, selector);
    await screenshot(page, `failed/${Date.now()}`);
    throw new Error(`"${selector}" did not come to contain "${expected}"; it reads ${JSON.stringify(actual)}`, {
      cause: error,
    });
  }
}
