/**
 * Session cookies and the console's security headers: the cookie's flags on plain HTTP and behind TLS
 * (SECURE_COOKIES), sign-out clearing it, and the headers on the console's pages and API answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

describe('session cookies', () => {
  /** `origin`: where the browser's page is (https behind a TLS proxy, in front of this plain server) */
  async function registerCookie(base: string, email: string, origin = base): Promise<string> {
    const response = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'cookie-password-1' }),
    });
    expect(response.status).toBe(201);
    return response.headers.get('set-cookie') ?? '';
  }

  it('are HttpOnly, SameSite=Lax, Path=/ and not Secure on plain HTTP', async () => {
    const cookie = await registerCookie(harness.baseUrl, 'cookie@example.com');
    expect(cookie).toMatch(/^gateway_session=/);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
    expect(cookie).not.toMatch(/;\s*Secure/i);
  });

  it('are Secure with SECURE_COOKIES=true (behind TLS)', async () => {
    const secure = await startHarness({ environment: { SECURE_COOKIES: 'true' } });
    try {
      const site = secure.baseUrl.replace(/^http:/, 'https:');
      const cookie = await registerCookie(secure.baseUrl, 'secure@example.com', site);
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    } finally {
      await secure.stop();
    }
  });

  it('end with sign-out (the cookie is cleared)', async () => {
    const response = await fetch(`${harness.baseUrl}/api/auth/logout`, {
      method: 'POST',
      headers: { origin: harness.baseUrl },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(/gateway_session=;.*Expires=Thu, 01 Jan 1970/i);
  });
});

describe('security headers', () => {
  it.each(['/', '/api/me', '/healthz', '/some/console/page'])('are set on %s', async (pathname) => {
    const response = await fetch(`${harness.baseUrl}${pathname}`);
    // The console's own policy; or, where no page exists (a checkout without console/dist), the stricter
    // `default-src 'none'` of Express's 404 page.
    expect(response.headers.get('content-security-policy')).toMatch(/default-src '(self|none)'/);
    if (response.status === 200)
      expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('keep console API answers out of caches', async () => {
    const response = await fetch(`${harness.baseUrl}/api/me`);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});
