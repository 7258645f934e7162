/**
 * Key policies on the hot path, through both endpoints in their own error shapes: the IP allowlist
 * and the per-key RPM and TPM limits with their `x-ratelimit-*` and `retry-after` headers.
 * (Expiry, quota and the model allowlist are covered in test/relay.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let consoleClient: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness();
  consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register('policies@example.com');
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

const endpoints = [
  {
    name: 'chat.completions',
    path: '/v1/chat/completions',
    headers: (key: string) => ({ authorization: `Bearer ${key}` }),
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] },
  },
  {
    name: 'messages',
    path: '/v1/messages',
    headers: (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] },
  },
] as const;

type Endpoint = (typeof endpoints)[number];

async function send(endpoint: Endpoint, key: string) {
  const response = await fetch(`${harness.baseUrl}${endpoint.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...endpoint.headers(key) },
    body: JSON.stringify(endpoint.body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function keyWith(policy: Record<string, unknown>): Promise<string> {
  return (await consoleClient.createToken(`key ${Math.random()}`, policy)).key;
}

function errorOf(endpoint: Endpoint, body: any): { type: string; message: string; code?: string } {
  return endpoint.name === 'messages' ? body.error : body.error;
}

describe('key policies on GET /v1/models', () => {
  const listModels = (key: string) =>
    fetch(`${harness.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as any,
    }));

  it('lists models for a key whose IP allowlist names the client address', async () => {
    const key = await keyWith({ ip_allowlist: ['127.0.0.1', '::1'] });
    const { status, body } = await listModels(key);
    expect(status).toBe(200);
    expect(body.data.map((model: { id: string }) => model.id)).toContain('gpt-4o-mini');
  });

  it('refuses a key used from outside its IP allowlist, as the relay does', async () => {
    const key = await keyWith({ ip_allowlist: ['10.0.0.0/8'] });
    const { status, body } = await listModels(key);
    expect(status).toBe(403);
    expect(body.error.code).toBe('ip_not_allowed');
    expect(body.error.message).toContain('127.0.0.1');
  });
});

describe.each(endpoints)('key policies through $path', (endpoint) => {
  it('lets a key with an allowlist naming the client address through', async () => {
    const key = await keyWith({ ip_allowlist: ['10.0.0.0/8', '127.0.0.0/8', '::1'] });
    expect((await send(endpoint, key)).status).toBe(200);
  });

  it('refuses a key used from outside its IP allowlist with a 403 naming the address', async () => {
    const key = await keyWith({ ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    const { status, body } = await send(endpoint, key);
    expect(status).toBe(403);
    const error = errorOf(endpoint, body);
    expect(error.type).toBe(endpoint.name === 'messages' ? 'permission_error' : 'permission_error');
    expect(error.message).toContain('127.0.0.1');
    expect(error.message).toContain('IP allowlist');
    if (endpoint.name === 'chat.completions') expect(body.error.code).toBe('ip_not_allowed');
    else expect(body.type).toBe('error');
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('counts requests per minute: headers on every answer, 429 with retry-after past the limit', async () => {
    const key = await keyWith({ rpm_limit: 2 });
    const first = await send(endpoint, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    const second = await send(endpoint, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const third = await send(endpoint, key);
    expect(third.status).toBe(429);
    const retryAfter = Number(third.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const error = errorOf(endpoint, third.body);
    expect(error.message).toContain('2 requests per minute');
    if (endpoint.name === 'chat.completions') {
      expect(third.body.error.type).toBe('rate_limit_exceeded');
      expect(third.body.error.code).toBe('rate_limit_exceeded');
    } else {
      expect(third.body.error.type).toBe('rate_limit_error');
    }
    expect(harness.upstream.requests).toHaveLength(2);
  });

  it('counts tokens per minute from the recorded usage and refuses once the budget is spent', async () => {
    const key = await keyWith({ tpm_limit: 20 });
    const first = await send(endpoint, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('20');
    expect(first.headers.get('x-ratelimit-limit-requests')).toBeNull();
    // The usage of the first reply (more than 20 tokens) is counted when it ends.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await send(endpoint, key);
    expect(second.status).toBe(429);
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(errorOf(endpoint, second.body).message).toContain('20 tokens per minute');
  });

  it('sends no rate-limit headers for a key without limits', async () => {
    const key = await keyWith({});
    const { status, headers } = await send(endpoint, key);
    expect(status).toBe(200);
    expect(headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect(headers.get('x-ratelimit-limit-tokens')).toBeNull();
  });
});

describe('key policy settings in the console API', () => {
  it('creates, shows and changes the IP allowlist and the limits', async () => {
    const created = await consoleClient.createToken('limited', {
      ip_allowlist: ['192.0.2.0/24'],
      rpm_limit: 60,
      tpm_limit: 10_000,
    });
    expect(created).toMatchObject({ ip_allowlist: ['192.0.2.0/24'], rpm_limit: 60, tpm_limit: 10_000 });
    const patched = await consoleClient.call('PATCH', `/api/tokens/${created.id}`, {
      ip_allowlist: null,
      rpm_limit: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ ip_allowlist: null, rpm_limit: null, tpm_limit: 10_000 });
  });

  it('refuses an allowlist entry that is not an address or a range, naming it', async () => {
    const { status, body } = await consoleClient.call('POST', '/api/tokens', {
      name: 'bad',
      ip_allowlist: ['10.0.0.0/33'],
    });
    expect(status).toBe(400);
    expect(body.error.field).toBe('ip_allowlist');
    expect(body.error.message).toContain('10.0.0.0/33');
    const zero = await consoleClient.call('POST', '/api/tokens', { name: 'zero', rpm_limit: 0 });
    expect(zero.status).toBe(400);
  });
});
