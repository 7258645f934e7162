/**
 * Money budgets on the embedded store: each request holds its maximum cost of the key's (and the
 * account's) budget before it is relayed and settles to its recorded cost, so concurrent requests
 * overshoot a budget by at most one request's cost; the refusal is 429 `budget_exceeded` in each
 * endpoint's error shape (read by the official SDKs), says which budget and when it resets; spend
 * survives a restart; unpriced models spend nothing; a changed budget holds at the next request; a
 * key whose account's budget is spent is listed as `budget_spent`, as one whose own budget is.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { withSlowSettlement } from '../support/slow-ledger.ts';

// The fake upstream answers gpt-4o-mini with 21 prompt and 10 completion tokens: at 1 and 2 USD per
// million, 41,000 nano-dollars. With max_tokens 20 a request holds about 20 × 1,000 + 20 × 2,000.
const ONE_REQUEST_NANO = 21 * 1000 + 10 * 2000;
const hello = [{ role: 'user' as const, content: 'hi' }];

let harness: Harness;
let client: ConsoleClient;
let admin: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
    extraChannels: [{ name: 'unpriced', type: 'openai', models: ['mystery-model'] }],
    configLines: ['prices:', '  gpt-4o-mini: { input_per_million: 1, output_per_million: 2 }'],
  });
  client = new ConsoleClient(harness.baseUrl);
  await client.register('budgets@example.com');
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => harness.stop());

async function chat(key: string, model = 'gpt-4o-mini'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, max_tokens: 20, messages: hello }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function projected(): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

async function listed(tokenId: string, as = client): Promise<any> {
  await projected();
  const { body } = await as.call('GET', '/api/tokens');
  return body.items.find((item: { id: string }) => item.id === tokenId);
}

function expectBudgetRefusals(answers: Array<{ status: number; body: any }>): void {
  for (const refused of answers.filter((answer) => answer.status !== 200)) {
    expect(refused.status).toBe(429);
    expect(['budget_exceeded', 'budget_held_by_requests_in_flight']).toContain(refused.body.error.code);
  }
}

describe('key budgets under concurrency (embedded)', () => {
  it('answers at most 4 of 20 concurrent requests on a budget with room for 3', async () => {
    const { key, id } = await client.createToken('room for 3', {
      budget_usd: (3 * ONE_REQUEST_NANO) / 1e9,
      budget_period: 'daily',
    });
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(key)));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBeGreaterThanOrEqual(3);
    expect(served.length).toBeLessThanOrEqual(4);
    expectBudgetRefusals(answers);
    const view = await listed(id);
    expect(Math.round(view.spent_usd * 1e9)).toBe(served.length * ONE_REQUEST_NANO);
    expect(view.budget_period).toBe('daily');
    expect(Date.parse(view.budget_resets_at) - Date.now()).toBeLessThanOrEqual(86_400_000);
  });

  it('lets 200 concurrent requests overshoot a budget by at most one request’s cost', async () => {
    const budgetNano = 1_000_000;
    const { key, id } = await client.createToken('one milli-dollar', { budget_usd: budgetNano / 1e9 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat(key)));
    let served = answers.filter((answer) => answer.status === 200).length;
    expectBudgetRefusals(answers);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served * ONE_REQUEST_NANO).toBeLessThanOrEqual(budgetNano + ONE_REQUEST_NANO);
    // Requests refused only for holds in flight left room: spend it, one at a time.
    for (let index = 0; index < 40 && (await chat(key)).status === 200; index++) served++;
    expect(served * ONE_REQUEST_NANO).toBeGreaterThanOrEqual(budgetNano);
    expect(served * ONE_REQUEST_NANO).toBeLessThanOrEqual(budgetNano + ONE_REQUEST_NANO);
    expect(Math.round((await listed(id)).spent_usd * 1e9)).toBe(served * ONE_REQUEST_NANO);
    // Settled spend refuses at once, before the projection is asked.
    expect((await chat(key)).body.error.code).toBe('budget_exceeded');
  });

  it('settles each request before its answer ends: a slow ledger never refuses the next request of one client', async () => {
    // The answer must wait for the settlement, or the next request finds the last one's hold still at
    // its maximum and is refused for holds in flight.
    await withSlowSettlement(harness.runtime.stores.quotas, 150, async () => {
      const { key } = await client.createToken('room for 3, one at a time', {
        budget_usd: (3 * ONE_REQUEST_NANO) / 1e9,
      });
      const streamed = async () => {
        const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 20, stream: true, messages: hello }),
        });
        await response.text();
        return response.status;
      };
      expect(await streamed()).toBe(200);
      expect((await chat(key)).status).toBe(200);
      expect(await streamed()).toBe(200);
      expect((await chat(key)).body.error.code).toBe('budget_exceeded');
    });
  });

  it('refuses in the OpenAI and Anthropic error shapes, saying which budget and when it resets', async () => {
    const { key } = await client.createToken('spent', { budget_usd: 0.00001, budget_period: 'monthly' });
    expect((await chat(key)).status).toBe(200);
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const refusedOpenAI = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', max_tokens: 20, messages: hello })
      .catch((error: unknown) => error);
    expect(refusedOpenAI).toBeInstanceOf(OpenAI.RateLimitError);
    const openaiError = refusedOpenAI as InstanceType<typeof OpenAI.RateLimitError>;
    expect(openaiError.code).toBe('budget_exceeded');
    expect(openaiError.type).toBe('insufficient_quota');
    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1));
    expect(openaiError.message).toContain("This API key's monthly budget of $0.00001 is spent");
    expect(openaiError.message).toContain(`resets at ${nextMonth.toISOString()}`);

    const anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
    const refusedAnthropic = await anthropic.messages
      .create({ model: 'gpt-4o-mini', max_tokens: 20, messages: hello })
      .catch((error: unknown) => error);
    expect(refusedAnthropic).toBeInstanceOf(Anthropic.RateLimitError);
    const anthropicError = refusedAnthropic as InstanceType<typeof Anthropic.RateLimitError>;
    expect(anthropicError.status).toBe(429);
    expect((anthropicError.error as any).type).toBe('error');
    expect((anthropicError.error as any).error.type).toBe('billing_error');
    expect((anthropicError.error as any).error.message).toContain('monthly budget');
  });

  it('spends nothing on an unpriced model, which still counts against the token quota', async () => {
    const { key, id } = await client.createToken('unpriced', { budget_usd: 0.00001, quota: 1_000_000 });
    for (let index = 0; index < 3; index++) expect((await chat(key, 'mystery-model')).status).toBe(200);
    const view = await listed(id);
    expect(view.spent_usd).toBe(0);
    expect(view.used_tokens).toBeGreaterThan(0);
  });

  it('holds an account budget over all of its keys, set by an admin, and a raised budget at the next request', async () => {
    const owner = new ConsoleClient(harness.baseUrl);
    const me = await owner.register('account-budget@example.com');
    const first = await owner.createToken('first');
    const second = await owner.createToken('second');
    const set = await admin.call('PATCH', `/api/users/${me.id}`, {
      budget_usd: (2 * ONE_REQUEST_NANO) / 1e9,
      budget_period: 'weekly',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ budget_usd: (2 * ONE_REQUEST_NANO) / 1e9, budget_period: 'weekly' });
    expect((await chat(first.key)).status).toBe(200);
    expect((await chat(second.key)).status).toBe(200);
    const refused = await chat(first.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    expect(refused.body.error.message).toContain("Your account's weekly budget (all of its keys together)");
    await projected();
    const users = await admin.call('GET', '/api/users');
    const listedUser = users.body.items.find((user: { id: string }) => user.id === me.id);
    expect(Math.round(listedUser.spent_usd * 1e9)).toBe(2 * ONE_REQUEST_NANO);
    // Neither key has a budget of its own, yet both are refused: both are listed as spent.
    for (const token of [first, second]) {
      expect(await listed(token.id, owner)).toMatchObject({ status: 'budget_spent', budget_usd: null });
    }
    // Raised: the very next request is let through, and the keys are active again.
    await admin.call('PATCH', `/api/users/${me.id}`, { budget_usd: 1 });
    expect((await listed(first.id, owner)).status).toBe('active');
    expect((await chat(second.key)).status).toBe(200);
    await admin.call('PATCH', `/api/users/${me.id}`, { budget_usd: null });
  });

  it('keeps the spend across a restart', async () => {
    const { key, id } = await client.createToken('restart', { budget_usd: (2 * ONE_REQUEST_NANO) / 1e9 });
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    await projected();
    // A new process: the ledger starts empty, the spend comes from the projection alone.
    await harness.restart();
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    const again = new ConsoleClient(harness.baseUrl);
    await again.call('POST', '/api/auth/login', { email: 'budgets@example.com', password: 'correct horse battery' });
    expect(Math.round((await listed(id, again)).spent_usd * 1e9)).toBe(2 * ONE_REQUEST_NANO);
  });
});
