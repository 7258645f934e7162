/**
 * @module test/support/sso-scenarios
 * Single sign-on journeys any deployment can be put through: one or more gateway nodes behind one
 * public origin (the provider's redirect names PUBLIC_URL; the journey finishes on the node it is
 * told, as a load balancer would pick one). Each answers what it observed; the suites assert.
 */
import { OidcBrowser } from './oidc-browser.ts';

export const CALLBACK_PATH = '/api/auth/sso/callback';

export interface Callback {
  browser: OidcBrowser;
  /** the callback URL the provider sent the browser to, with its code and state */
  callback: URL;
}

/** A fresh browser, from the gateway's start through the provider's forms, up to the callback. */
export async function untilCallback(gatewayUrl: string, login: string, redirect = '/overview'): Promise<Callback> {
  const browser = new OidcBrowser();
  const start = `${gatewayUrl}/api/auth/sso/start?redirect=${encodeURIComponent(redirect)}`;
  const { url } = await browser.signIn(start, login, (next) => next.pathname === CALLBACK_PATH);
  return { browser, callback: url };
}

export interface Finished {
  status: number;
  /** where the gateway sends the browser: the landing path, or `/sign-in?sso_error=…` */
  location: string;
  /** the signed-in account's id (GET /api/me), or null */
  userId: string | null;
  email: string | null;
  role: string | null;
}

/** Requests the callback on `gatewayUrl` and asks that node who the browser is now. */
export async function finishOn(gatewayUrl: string, { browser, callback }: Callback): Promise<Finished> {
  const response = await browser.request(`${gatewayUrl}${callback.pathname}${callback.search}`);
  const me = await browser.request(`${gatewayUrl}/api/me`);
  const body = me.status === 200 ? ((await me.json()) as { id: string; email: string; role: string }) : null;
  return {
    status: response.status,
    location: response.headers.get('location') ?? '',
    userId: body?.id ?? null,
    email: body?.email ?? null,
    role: body?.role ?? null,
  };
}

/** A whole sign-in on one gateway. */
export async function signInWithSso(gatewayUrl: string, login: string, redirect?: string): Promise<Finished> {
  return finishOn(gatewayUrl, await untilCallback(gatewayUrl, login, redirect));
}

/**
 * `count` first sign-ins of one person at the same moment, spread over the nodes: every browser is
 * taken up to its callback first, then all callbacks are requested at once, each on the node after
 * the one that started it (with two nodes, every sign-in finishes on the other).
 */
export async function firstSignInsAtOnce(urls: string[], login: string, count: number): Promise<Finished[]> {
  const callbacks = await Promise.all(
    Array.from({ length: count }, (_, index) => untilCallback(urls[index % urls.length]!, login)),
  );
  return Promise.all(callbacks.map((callback, index) => finishOn(urls[(index + 1) % urls.length]!, callback)));
}
