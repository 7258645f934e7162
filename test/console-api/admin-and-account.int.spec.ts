/**
 * What the console's account and admin pages rely on: a password change ends older sessions; admins
 * disable users (no sign-in, keys refused), change roles, and manage channels whose upstream key is
 * write-only; the overview carries latency and top keys; the log filters by outcome; console pages
 * carry security headers.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

let harness: Harness;
let admin: ConsoleClient;
const hello = [{ role: 'user' as const, content: 'hi' }];
const password = 'correct horse battery';

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => harness.stop());

function client(key: string): OpenAI {
  return new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
}

async function settle(): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

describe('password change', () => {
  it('checks the current password, keeps this session and ends the others', async () => {
    const here = new ConsoleClient(harness.baseUrl);
    await here.register('pat@example.com');
    const elsewhere = new ConsoleClient(harness.baseUrl);
    await elsewhere.call('POST', '/api/auth/login', { email: 'pat@example.com', password });
    expect((await elsewhere.call('GET', '/api/me')).status).toBe(200);

    const wrong = await here.call('POST', '/api/auth/password', {
      current_password: 'nope',
      new_password: 'x'.repeat(9),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'wrong_password', field: 'current_password' });
    const short = await here.call('POST', '/api/auth/password', { current_password: password, new_password: 'short' });
    expect(short.body.error.field).toBe('new_password');

    const changed = await here.call('POST', '/api/auth/password', {
      current_password: password,
      new_password: 'a brand new password',
    });
    expect(changed.status).toBe(200);
    expect((await here.call('GET', '/api/me')).status).toBe(200);
    expect((await elsewhere.call('GET', '/api/me')).status).toBe(401);
    const old = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/login', {
      email: 'pat@example.com',
      password,
    });
    expect(old.status).toBe(401);
    const fresh = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/login', {
      email: 'pat@example.com',
      password: 'a brand new password',
    });
    expect(fresh.status).toBe(200);
  });
});

describe('users (admin)', () => {
  it('lists users for admins only', async () => {
    const user = new ConsoleClient(harness.baseUrl);
    await user.register('quinn@example.com');
    expect((await user.call('GET', '/api/users')).status).toBe(403);
    const list = await admin.call('GET', '/api/users');
    expect(list.status).toBe(200);
    const quinn = list.body.items.find((item: any) => item.email === 'quinn@example.com');
    expect(quinn).toMatchObject({ role: 'user', disabled: false });
    expect(JSON.stringify(list.body)).not.toContain('scrypt');
  });

  it('disables a user: no sign-in, sessions end, keys refused; enabling restores all', async () => {
    const user = new ConsoleClient(harness.baseUrl);
    const me = await user.register('rita@example.com');
    const { key } = await user.createToken('rita');
    await client(key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });

    const disabled = await admin.call('PATCH', `/api/users/${me.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ id: me.id, disabled: true });
    expect((await user.call('GET', '/api/me')).status).toBe(401);
    const login = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/login', {
      email: 'rita@example.com',
      password,
    });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe('account_disabled');
    const refused = await client(key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(refused.status).toBe(401);
    expect(refused.message).toMatch(/account .* is disabled/);

    await admin.call('PATCH', `/api/users/${me.id}`, { disabled: false });
    expect((await user.call('GET', '/api/me')).status).toBe(200);
    await client(key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
  });

  it('changes roles, but never lets admins disable or demote themselves', async () => {
    const user = new ConsoleClient(harness.baseUrl);
    const me = await user.register('sam@example.com');
    await admin.call('PATCH', `/api/users/${me.id}`, { role: 'admin' });
    expect((await user.call('GET', '/api/users')).status).toBe(200);
    const self = (await admin.call('GET', '/api/me')).body;
    const refused = await admin.call('PATCH', `/api/users/${self.id}`, { disabled: true });
    expect(refused.status).toBe(409);
    expect((await admin.call('PATCH', '/api/users/nobody', { role: 'user' })).status).toBe(404);
  });
});

describe('channels (admin)', () => {
  const channel = {
    name: 'console-added',
    type: 'openai',
    base_url: '',
    api_key: UPSTREAM_KEY_OPENAI,
    models: ['gpt-console'],
    model_mapping: { 'gpt-console': 'gpt-4o-mini' },
  };

  it('adds a channel that routes at once, never returning its key', async () => {
    const user = new ConsoleClient(harness.baseUrl);
    await user.register('tess@example.com');
    expect((await user.call('GET', '/api/channels')).status).toBe(403);
    const created = await admin.call('POST', '/api/channels', { ...channel, base_url: `${harness.upstream.url}/v1` });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'console-added', enabled: true, priority: 0, weight: 1 });
    expect(created.body.key_hint).toBe(`••••${UPSTREAM_KEY_OPENAI.slice(-4)}`);
    const list = await admin.call('GET', '/api/channels');
    expect(list.body.items.map((item: any) => item.name)).toContain('console-added');
    expect(JSON.stringify(list.body)).not.toContain(UPSTREAM_KEY_OPENAI);
    expect((await admin.call('POST', '/api/channels', { ...channel, base_url: 'http://x.test' })).status).toBe(409);

    const { key } = await user.createToken('t');
    const answer = await client(key).chat.completions.create({ model: 'gpt-console', messages: hello });
    expect(answer.choices[0]!.message.content).toBeTruthy();
  });

  it('tests a channel with a one-token request and reports failures', async () => {
    const id = (await admin.call('GET', '/api/channels')).body.items.find(
      (item: any) => item.name === 'console-added',
    ).id;
    const ok = await admin.call('POST', `/api/channels/${id}/test`, {});
    expect(ok.body).toMatchObject({ ok: true, status: 200, model: 'gpt-console', error: null });
    expect(ok.body.latency_ms).toBeGreaterThanOrEqual(0);
    const upstreamUrl = `${harness.upstream.url}/v1`;
    await admin.call('PATCH', `/api/channels/${id}`, { base_url: 'http://127.0.0.1:9/v1' });
    const failed = await admin.call('POST', `/api/channels/${id}/test`, {});
    expect(failed.body).toMatchObject({ ok: false, status: 0 });
    expect(failed.body.error).toMatch(/Could not reach/);
    await admin.call('PATCH', `/api/channels/${id}`, { base_url: upstreamUrl });
  });

  it('edits, disables and deletes a channel', async () => {
    const id = (await admin.call('GET', '/api/channels')).body.items.find(
      (item: any) => item.name === 'console-added',
    ).id;
    const edited = await admin.call('PATCH', `/api/channels/${id}`, { priority: 5, weight: 3, enabled: false });
    expect(edited.body).toMatchObject({
      priority: 5,
      weight: 3,
      enabled: false,
      base_url: `${harness.upstream.url}/v1`,
    });
    const models = await fetch(`${harness.baseUrl}/v1/models`, {
      headers: { authorization: `Bearer ${(await admin.createToken('models')).key}` },
    });
    expect(JSON.stringify(await models.json())).not.toContain('gpt-console');
    expect((await admin.call('DELETE', `/api/channels/${id}`)).status).toBe(204);
    expect((await admin.call('DELETE', `/api/channels/${id}`)).status).toBe(404);
    const bad = await admin.call('POST', '/api/channels', { ...channel, base_url: 'not a url' });
    expect(bad.body.error.field).toBe('base_url');
  });
});

describe('overview and log additions', () => {
  it('reports latency and top keys, and filters the log by outcome', async () => {
    const user = new ConsoleClient(harness.baseUrl);
    await user.register('uma@example.com');
    const first = await user.createToken('first');
    const second = await user.createToken('second');
    await client(first.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await client(first.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await client(second.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await client(second.key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello, temperature: 9 })
      .catch(() => undefined);
    await settle();
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const overview = (await user.call('GET', `/api/usage/overview?from=${from}&to=${to}`)).body;
    expect(overview.latency.average_ms).toBeGreaterThanOrEqual(0);
    expect(overview.latency.p95_ms).toBeGreaterThanOrEqual(overview.latency.average_ms > 0 ? 0 : -1);
    expect(overview.by_token.map((row: any) => row.token_name)).toEqual(['first', 'second']);
    expect(overview.by_token[0]).toMatchObject({ token_id: first.id, calls: 2, key_hint: first.key_hint });

    const errors = (await user.call('GET', '/api/usage/logs?status=error')).body.items;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 400, token_name: 'second' });
    const ok = (await user.call('GET', `/api/usage/logs?status=ok&token_id=${first.id}`)).body.items;
    expect(ok).toHaveLength(2);
    expect(ok.every((item: any) => item.token_name === 'first')).toBe(true);

    // Only an administrator is told whose key it is.
    expect(overview.by_token[0]).not.toHaveProperty('owner_email');
    const all = (await admin.call('GET', `/api/usage/overview?from=${from}&to=${to}&user_id=all`)).body;
    const mine = all.by_token.find((row: any) => row.token_id === first.id);
    expect(mine).toMatchObject({ token_name: 'first', owner_email: 'uma@example.com' });

    const empty = new ConsoleClient(harness.baseUrl);
    await empty.register('vera@example.com');
    const none = (await empty.call('GET', `/api/usage/overview?from=${from}&to=${to}`)).body;
    expect(none.latency).toEqual({ average_ms: null, p95_ms: null });
    expect(none.by_token).toEqual([]);
  });
});

describe('security headers', () => {
  it('sends CSP, nosniff, referrer policy and frame denial', async () => {
    for (const path of ['/', '/api/me']) {
      const response = await fetch(`${harness.baseUrl}${path}`);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('same-origin');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });
});
