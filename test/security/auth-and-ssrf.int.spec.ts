/**
 * The two guards with their real settings: sign-in and registration rate-limited per email and per
 * client address (429 `too_many_attempts` with retry-after), and channel base URLs entered in the
 * console refused on private, loopback and link-local addresses unless ALLOW_PRIVATE_UPSTREAMS=true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const ADMIN = { email: 'guard-admin@example.com', password: 'guard-admin-password' };

describe('sign-in and registration rate limit', () => {
  // Each case has a gateway of its own, so that neither waits for the other's window to pass.
  const harnesses: Harness[] = [];
  const limitedGateway = async (windowMs: number): Promise<Harness> => {
    const started = await startHarness({
      environment: {
        AUTH_RATE_LIMIT_ATTEMPTS: '3',
        AUTH_RATE_LIMIT_IP_ATTEMPTS: '8',
        AUTH_RATE_LIMIT_WINDOW_MS: String(windowMs),
      },
    });
    harnesses.push(started);
    return started;
  };
  afterAll(async () => {
    await Promise.all(harnesses.map((started) => started.stop()));
  });

  it('refuses the fourth wrong password for one email with 429 and retry-after, then lets it through after the window', async () => {
    // Long enough for a registration and three sign-ins (each hashes a password) on a busy machine.
    const harness = await limitedGateway(3_000);
    const client = new ConsoleClient(harness.baseUrl);
    await client.register('victim@example.com', 'victim-password-1');
    // The registration was attempt 1 for this email.
    for (const _ of [1, 2]) {
      const wrong = await client.call('POST', '/api/auth/login', { email: 'victim@example.com', password: 'guess' });
      expect(wrong.status).toBe(401);
    }
    const limited = await fetch(`${harness.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { origin: harness.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'VICTIM@example.com', password: 'victim-password-1' }),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await limited.json();
    expect(body).toEqual({
      error: { code: 'too_many_attempts', message: expect.stringMatching(/try again in \d+ s/) },
    });

    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const ok = await client.call('POST', '/api/auth/login', {
      email: 'victim@example.com',
      password: 'victim-password-1',
    });
    expect(ok.status).toBe(200);
  });

  it('limits one client address across many emails, registration included', async () => {
    const harness = await limitedGateway(60_000);
    const statuses: number[] = [];
    for (let index = 0; index < 10; index += 1) {
      const response = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/register', {
        email: `spray${index}@example.com`,
        password: 'spray-password-1',
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(201));
    expect(statuses.slice(8)).toEqual([429, 429]);
  });
});

describe('channel base URLs on private addresses (SSRF guard on)', () => {
  let harness: Harness;
  let admin: ConsoleClient;
  const channel = { name: 'new', type: 'openai', api_key: 'sk-upstream-000000000000', models: ['m'] };

  beforeAll(async () => {
    harness = await startHarness({
      environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ALLOW_PRIVATE_UPSTREAMS: 'false' },
    });
    admin = new ConsoleClient(harness.baseUrl);
    expect((await admin.call('POST', '/api/auth/login', ADMIN)).status).toBe(200);
  });
  afterAll(async () => harness?.stop());

  it.each([
    'http://127.0.0.1:11434/v1',
    'http://localhost:8080/v1',
    'http://[::1]/v1',
    'http://169.254.169.254/latest',
    'http://10.0.0.1/v1',
    'http://192.168.1.10/v1',
    'http://[::ffff:127.0.0.1]/v1',
    'http://2130706433/v1',
  ])('refuses creating a channel at %s', async (baseUrl) => {
    const response = await admin.call('POST', '/api/channels', { ...channel, base_url: baseUrl });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'upstream_address_refused', field: 'base_url' });
    expect(
      (await admin.call('GET', '/api/channels')).body.items.map((item: { name: string }) => item.name),
    ).not.toContain('new');
  });

  it('accepts a public address, and refuses moving it to a private one', async () => {
    const created = await admin.call('POST', '/api/channels', { ...channel, base_url: 'https://93.184.215.14/v1' });
    expect(created.status).toBe(201);
    const moved = await admin.call('PATCH', `/api/channels/${created.body.id}`, { base_url: 'http://127.0.0.1:9/v1' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.code).toBe('upstream_address_refused');
    const list = (await admin.call('GET', '/api/channels')).body.items;
    expect(list.find((item: { id: string }) => item.id === created.body.id).base_url).toBe('https://93.184.215.14/v1');
  });

  it('does not check channels from the operator config file (the harness seeds 127.0.0.1), and tests them', async () => {
    const seeded = (await admin.call('GET', '/api/channels')).body.items.find(
      (item: { name: string }) => item.name === 'fake-openai',
    );
    expect(seeded.base_url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const tested = await admin.call('POST', `/api/channels/${seeded.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.body.ok).toBe(true);
  });
});
