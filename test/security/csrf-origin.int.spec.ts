/**
 * The console's cross-site guard compares whole origins (scheme, host and port), not host names: an
 * https Origin is not this plain-HTTP server, `Origin: null` is refused whatever the Referer says,
 * and a Referer stands in for a missing Origin only when its origin matches. The site is the request's
 * own origin, with the scheme a trusted proxy (TRUST_PROXY) reports, or PUBLIC_URL when it is set.
 * A request the guard lets through reaches sign-in (401 for a wrong password); one it refuses is a 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const PUBLIC_URL = 'https://gateway.example.com';

let plain: Harness;
let proxied: Harness;
let configured: Harness;

beforeAll(async () => {
  [plain, proxied, configured] = await Promise.all([
    startHarness(),
    startHarness({ environment: { TRUST_PROXY: '1' } }),
    startHarness({ environment: { PUBLIC_URL } }),
  ]);
});
afterAll(async () => {
  await Promise.all([plain?.stop(), proxied?.stop(), configured?.stop()]);
});

/** The status of a wrong-password sign-in with these headers, and the error code. */
async function signIn(harness: Harness, headers: Record<string, string>) {
  const response = await fetch(`${harness.baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email: 'nobody@example.com', password: 'not-the-password' }),
  });
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

const refused = { status: 403, code: 'cross_site_request' };
const through = { status: 401 };
const port = (harness: Harness) => new URL(harness.baseUrl).port;

describe('on a plain-HTTP server without PUBLIC_URL', () => {
  it('lets its own origin through, in Origin or (without one) in Referer', async () => {
    expect(await signIn(plain, { origin: plain.baseUrl })).toMatchObject(through);
    expect(await signIn(plain, { referer: `${plain.baseUrl}/console/tokens` })).toMatchObject(through);
  });

  it('refuses the same host over https, or on another port', async () => {
    const https = plain.baseUrl.replace(/^http:/, 'https:');
    expect(await signIn(plain, { origin: https })).toMatchObject(refused);
    expect(await signIn(plain, { origin: `http://127.0.0.1:${Number(port(plain)) + 1}` })).toMatchObject(refused);
    expect(await signIn(plain, { referer: `${https}/console` })).toMatchObject(refused);
  });

  it('refuses Origin: null, even with a Referer of the site', async () => {
    const answer = await signIn(plain, { origin: 'null', referer: `${plain.baseUrl}/console` });
    expect(answer).toMatchObject(refused);
    expect(answer.message).toContain('Origin: null');
  });

  it('does not believe X-Forwarded-Proto from a client when no proxy is trusted', async () => {
    const https = plain.baseUrl.replace(/^http:/, 'https:');
    expect(await signIn(plain, { origin: https, 'x-forwarded-proto': 'https' })).toMatchObject(refused);
  });

  it('says what the site is when it refuses a foreign origin', async () => {
    const answer = await signIn(plain, { origin: 'https://evil.example' });
    expect(answer.message).toContain('Requests from https://evil.example');
    expect(answer.message).toContain(`this site is ${plain.baseUrl}`);
  });
});

describe('behind a trusted proxy (TRUST_PROXY=1)', () => {
  it('takes the scheme and host the proxy reports', async () => {
    const https = proxied.baseUrl.replace(/^http:/, 'https:');
    expect(await signIn(proxied, { origin: https, 'x-forwarded-proto': 'https' })).toMatchObject(through);
    expect(await signIn(proxied, { origin: proxied.baseUrl, 'x-forwarded-proto': 'https' })).toMatchObject(refused);
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'gateway.example.com' };
    expect(await signIn(proxied, { origin: PUBLIC_URL, ...forwarded })).toMatchObject(through);
    // The proxy's entry is the last one: what a client wrote before it is not believed.
    const spoofed = { 'x-forwarded-proto': 'https, http' };
    expect(await signIn(proxied, { origin: https, ...spoofed })).toMatchObject(refused);
  });
});

describe('with PUBLIC_URL', () => {
  it('lets only that origin through, scheme, host and port', async () => {
    expect(await signIn(configured, { origin: PUBLIC_URL })).toMatchObject(through);
    expect(await signIn(configured, { origin: `${PUBLIC_URL}:443` })).toMatchObject(through);
    expect(await signIn(configured, { referer: `${PUBLIC_URL}/console` })).toMatchObject(through);
    for (const origin of [
      configured.baseUrl,
      'http://gateway.example.com',
      'https://gateway.example.com:8443',
      'https://evil.gateway.example.com',
    ]) {
      expect(await signIn(configured, { origin }), origin).toMatchObject(refused);
    }
  });
});
