/**
 * Every key setting can be changed after creation through `PATCH /api/tokens/:id`, with the
 * creation's validation (one zod schema), and each change holds at the key's next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let client: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness({
    configLines: ['prices:', '  gpt-4o-mini: { input_per_million: 1, output_per_million: 2 }'],
  });
  client = new ConsoleClient(harness.baseUrl);
  await client.register('editing@example.com');
});
afterAll(async () => harness.stop());

async function chat(key: string, model = 'gpt-4o-mini'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('editing a key', () => {
  it('refuses invalid settings with a clear error naming the field, on create and on change alike', async () => {
    const { id } = await client.createToken('to edit');
    const invalid: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ budget_usd: -1 }, 'budget_usd', /at least 0/],
      [{ budget_usd: '5' }, 'budget_usd', /must be a number/],
      [{ budget_usd: 2_000_000 }, 'budget_usd', /at most 1000000/],
      [{ budget_period: 'yearly' }, 'budget_period', /total.*daily.*weekly.*monthly/],
      [{ rpm_limit: 0 }, 'rpm_limit', /at least 1/],
      [{ tpm_limit: 1.5 }, 'tpm_limit', /integer/],
      [{ quota: -5 }, 'quota', /at least 0/],
      [{ expires_at: 'next tuesday' }, 'expires_at', /valid datetime/],
      [{ ip_allowlist: ['not an address'] }, 'ip_allowlist', /IP address or a CIDR range/],
      [{ models: [''] }, 'models', /must not be empty/],
    ];
    for (const [input, field, message] of invalid) {
      for (const [method, path, body] of [
        ['PATCH', `/api/tokens/${id}`, input],
        ['POST', '/api/tokens', { name: 'x', ...input }],
      ] as const) {
        const answer = await client.call(method, path, body);
        expect(answer.status, `${method} ${JSON.stringify(input)}`).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
        expect(answer.body.error.field?.startsWith(field), JSON.stringify(answer.body)).toBe(true);
        expect(answer.body.error.message).toMatch(message);
      }
    }
    const precise = await client.call('PATCH', `/api/tokens/${id}`, { ip_allowlist: ['10.0.0.0/99'] });
    expect(precise.status).toBe(400);
    expect(precise.body.error.field).toBe('ip_allowlist');
  });

  it('changes every setting and shows it with the spend in the list', async () => {
    const { id } = await client.createToken('everything', { expires_at: '2030-01-01T00:00:00Z' });
    const changed = await client.call('PATCH', `/api/tokens/${id}`, {
      expires_at: '2031-06-01T00:00:00Z',
      quota: 5000,
      budget_usd: 12.5,
      budget_period: 'weekly',
      models: ['gpt-4o-mini'],
      rpm_limit: 60,
      tpm_limit: 10_000,
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8'],
    });
    expect(changed.status).toBe(200);
    const { body } = await client.call('GET', '/api/tokens');
    expect(body.items.find((item: { id: string }) => item.id === id)).toMatchObject({
      expires_at: '2031-06-01T00:00:00.000Z',
      quota: 5000,
      budget_usd: 12.5,
      budget_period: 'weekly',
      spent_usd: 0,
      models: ['gpt-4o-mini'],
      rpm_limit: 60,
      tpm_limit: 10_000,
      ip_allowlist: ['127.0.0.1', '10.0.0.0/8'],
    });
    const cleared = await client.call('PATCH', `/api/tokens/${id}`, { budget_usd: null, models: null });
    expect(cleared.body).toMatchObject({ budget_usd: null, models: null, budget_resets_at: null });
  });

  it('lists the models the channels serve, for the allowlist picker', async () => {
    const { status, body } = await client.call('GET', '/api/models');
    expect(status).toBe(200);
    expect(body.items).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini', 'gpt-mapped']);
    expect((await new ConsoleClient(harness.baseUrl).call('GET', '/api/models')).status).toBe(401);
  });

  it('enforces a change at the key’s next request', async () => {
    const { id, key } = await client.createToken('next request');
    expect((await chat(key)).status).toBe(200);
    await client.call('PATCH', `/api/tokens/${id}`, { budget_usd: 0 });
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    await client.call('PATCH', `/api/tokens/${id}`, { budget_usd: null, models: ['gpt-mapped'] });
    expect((await chat(key)).body.error.code).toBe('model_not_allowed');
    await client.call('PATCH', `/api/tokens/${id}`, { models: null, expires_at: '2020-01-01T00:00:00Z' });
    expect((await chat(key)).body.error.code).toBe('expired_api_key');
    await client.call('PATCH', `/api/tokens/${id}`, { expires_at: '2099-01-01T00:00:00Z' });
    expect((await chat(key)).status).toBe(200);
  });
});
