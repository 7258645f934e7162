/**
 * Signing out ends the session on the server, not only in the browser: the old cookie, replayed, is
 * refused (401) at once and after a restart, while the user's other sessions go on. A password change
 * ends the sessions issued before it, the changing browser's old cookie included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const USER = { email: 'signs-out@example.com', password: 'signs-out password 1' };

let harness: Harness;

async function post(path: string, body: unknown, cookie = ''): Promise<{ status: number; cookie: string }> {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method: 'POST',
    headers: { origin: harness.baseUrl, 'content-type': 'application/json', ...(cookie && { cookie }) },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, cookie: (response.headers.get('set-cookie') ?? '').split(';')[0]! };
}

async function me(cookie: string): Promise<number> {
  const response = await fetch(`${harness.baseUrl}/api/me`, { headers: { cookie } });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness?.stop());

describe('sign-out (embedded)', () => {
  it('refuses the signed-out cookie when replayed, keeps the other sessions, and still refuses it after a restart', async () => {
    const laptop = (await post('/api/auth/register', USER)).cookie;
    const phone = (await post('/api/auth/login', USER)).cookie;
    expect([await me(laptop), await me(phone)]).toEqual([200, 200]);

    const signedOut = await post('/api/auth/logout', {}, laptop);
    expect(signedOut.status).toBe(204);
    expect(await me(laptop)).toBe(401);
    expect(await me(phone)).toBe(200);
    // Signing out again with the ended cookie is harmless.
    expect((await post('/api/auth/logout', {}, laptop)).status).toBe(204);

    await harness.restart();
    expect(await me(laptop)).toBe(401);
    expect(await me(phone)).toBe(200);
  });

  it("ends the sessions issued before a password change, the changing browser's old cookie included", async () => {
    const before = (await post('/api/auth/login', USER)).cookie;
    const other = (await post('/api/auth/login', USER)).cookie;
    const changed = await post(
      '/api/auth/password',
      { current_password: USER.password, new_password: 'a brand new password' },
      before,
    );
    expect(changed.status).toBe(200);
    expect(changed.cookie).not.toBe(before);
    expect([await me(before), await me(other), await me(changed.cookie)]).toEqual([401, 401, 200]);
  });
});
