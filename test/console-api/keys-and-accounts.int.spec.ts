/**
 * Accounts and API keys through the console API, and the promises around them: a new key works on
 * the very next request, a revoked key is refused on the next one, keys are never stored or shown
 * again in plaintext, and users only ever see their own keys.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
const hello = [{ role: 'user' as const, content: 'hi' }];

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
});
afterAll(async () => harness.stop());

function client(key: string): OpenAI {
  return new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
}

describe('accounts', () => {
  it('registers, signs out, signs in, and tells who is signed in', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    const user = await console.register('alice@example.com');
    expect(user).toMatchObject({ email: 'alice@example.com', role: 'user' });
    expect((await console.call('GET', '/api/me')).body.email).toBe('alice@example.com');
    expect((await console.call('POST', '/api/auth/logout')).status).toBe(204);
    expect((await console.call('GET', '/api/me')).status).toBe(401);
    const wrong = await console.call('POST', '/api/auth/login', {
      email: 'alice@example.com',
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_credentials');
    const login = await console.call('POST', '/api/auth/login', {
      email: 'ALICE@example.com',
      password: 'correct horse battery',
    });
    expect(login.status).toBe(200);
    expect((await console.call('GET', '/api/me')).body.id).toBe(user.id);
  });

  it('refuses a duplicate email, a short password and a malformed email with the field and rule named', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register('bob@example.com');
    const duplicate = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/register', {
      email: 'bob@example.com',
      password: 'long enough pw',
    });
    expect(duplicate.status).toBe(409);
    const short = await console.call('POST', '/api/auth/register', { email: 'carol@example.com', password: 'short' });
    // The rule and its bound, for a console to say in its own language; the sentence for scripts.
    expect(short.body.error).toEqual({
      code: 'invalid_request',
      field: 'password',
      rule: 'too_short',
      limit: 8,
      message: 'password: must be at least 8 characters',
    });
    const malformed = await console.call('POST', '/api/auth/register', {
      email: 'not-an-email',
      password: 'long enough pw',
    });
    expect(malformed.body.error).toMatchObject({ field: 'email', rule: 'invalid_email' });
  });

  it('creates the first admin from ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    const login = await console.call('POST', '/api/auth/login', {
      email: 'root@example.com',
      password: 'admin-password-1',
    });
    expect(login.body.role).toBe('admin');
  });

  it('refuses a state-changing call from another site', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    const response = await console.call(
      'POST',
      '/api/auth/register',
      { email: 'evil@example.com', password: 'long enough pw' },
      { origin: 'https://evil.example' },
    );
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('cross_site_request');
  });
});

describe('API keys', () => {
  it('issues a key shown once, stored only as a hash, that works on the very next request', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register('dave@example.com');
    const created = await console.createToken('laptop');
    expect(created.key).toMatch(/^sk-[0-9A-Za-z]{40,}$/);
    expect(created.key_hint).toBe(`${created.key.slice(0, 7)}…${created.key.slice(-4)}`);
    const completion = await client(created.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    expect(completion.choices[0]!.message.content).toBeTruthy();
    const list = await console.call('GET', '/api/tokens');
    expect(list.body.items).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(created.key);
    expect(list.body.items[0]).toMatchObject({ id: created.id, name: 'laptop', status: 'active' });
    const database = readFileSync(path.join(harness.dataDirectory, 'gateway.db'));
    expect(database.includes(created.key)).toBe(false);
  });

  it('refuses a revoked key on the next request', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register('erin@example.com');
    const created = await console.createToken('ci');
    const openai = client(created.key);
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    const revoked = await console.call('DELETE', `/api/tokens/${created.id}`);
    expect(revoked.body.status).toBe('revoked');
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.message).toMatch(/revoked/);
  });

  it('enforces expiry, quota and the model allowlist given at creation', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register('frank@example.com');
    const expired = await console.createToken('old', { expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(
      (
        await client(expired.key)
          .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
          .catch((caught) => caught)
      ).status,
    ).toBe(401);
    const limited = await console.createToken('claude only', { models: ['claude-sonnet-4-5'] });
    const refused = await client(limited.key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/limited to: claude-sonnet-4-5/);
    const tiny = await console.createToken('tiny', { quota: 1 });
    await client(tiny.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();
    const exhausted = await client(tiny.key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(exhausted.status).toBe(429);
    expect(exhausted.code).toBe('insufficient_quota');
  });

  it("never lets one user see, change or revoke another user's key", async () => {
    const owner = new ConsoleClient(harness.baseUrl);
    await owner.register('grace@example.com');
    const created = await owner.createToken('mine');
    const intruder = new ConsoleClient(harness.baseUrl);
    await intruder.register('mallory@example.com');
    expect((await intruder.call('GET', '/api/tokens')).body.items).toEqual([]);
    expect((await intruder.call('PATCH', `/api/tokens/${created.id}`, { name: 'pwned' })).status).toBe(404);
    expect((await intruder.call('DELETE', `/api/tokens/${created.id}`)).status).toBe(404);
    const stillWorks = await client(created.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    expect(stillWorks.choices).toHaveLength(1);
    expect((await new ConsoleClient(harness.baseUrl).call('GET', '/api/tokens')).status).toBe(401);
  });

  it('renames and disables a key, and a disabled key is refused', async () => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register('heidi@example.com');
    const created = await console.createToken('first name');
    const renamed = await console.call('PATCH', `/api/tokens/${created.id}`, { name: 'second name', enabled: false });
    expect(renamed.body).toMatchObject({ name: 'second name', status: 'disabled' });
    const error = await client(created.key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
      .catch((caught) => caught);
    expect(error.message).toMatch(/disabled/);
  });
});
