/**
 * The hold a request takes before it is relayed sees the whole request, on the embedded store: the
 * earlier turns a `previous_response_id` continuation adds, and every choice of chat's `n`. Behind
 * the gateway an honest upstream bills what it receives (4 characters a token of the messages it is
 * sent, and every choice at its full `max_tokens`), so 20 concurrent requests overshoot a money
 * budget, a token quota or a TPM limit by at most the one request that crossed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import {
  COMPLETION_NANO,
  continuation,
  HONEST_MODEL,
  HONEST_PRICE_LINES,
  honestUpstream,
  manyChoices,
  PROMPT_NANO,
  TURN_BYTES,
  TURNS,
  turnInput,
} from '../support/honest-upstream.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

let harness: Harness;
let upstream: ScriptedUpstream;
let client: ConsoleClient;
/** the cost of each request the upstream answered, in nano-dollars, as it billed it */
const billed: number[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream(honestUpstream(billed));
  harness = await startHarness({
    extraChannels: [{ name: 'honest', type: 'openai', models: [HONEST_MODEL], baseUrl: `${upstream.url}/v1` }],
    configLines: HONEST_PRICE_LINES,
  });
  client = new ConsoleClient(harness.baseUrl);
  await client.register('whole-request@example.com');
});
afterAll(async () => {
  await harness.stop();
  await upstream.close();
});

async function post(path: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A stored conversation of TURNS turns of TURN_BYTES each, made with a key of the account that holds nothing. */
async function storedConversation(): Promise<{ key: string; previous: string }> {
  const { key } = await client.createToken('conversation');
  let previous: string | undefined;
  for (let turn = 0; turn < TURNS; turn++) {
    const answer = await post('/v1/responses', key, {
      model: HONEST_MODEL,
      input: turnInput(turn),
      max_output_tokens: 16,
      ...(previous && { previous_response_id: previous }),
    });
    expect(answer.status).toBe(200);
    previous = answer.body.id as string;
  }
  return { key, previous: previous! };
}

async function concurrently(count: number, send: () => Promise<{ status: number; body: any }>) {
  billed.length = 0;
  const answers = await Promise.all(Array.from({ length: count }, send));
  const served = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status !== 200);
  return { served, refused, billed: [...billed] };
}

async function listed(tokenId: string): Promise<any> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  const { body } = await client.call('GET', '/api/tokens');
  return body.items.find((item: { id: string }) => item.id === tokenId);
}

describe('continuations hold their earlier turns (embedded)', () => {
  let previous: string;
  let unlimited: string;
  beforeAll(async () => {
    ({ key: unlimited, previous } = await storedConversation());
  });

  it('overshoots a key budget by at most one of 20 concurrent continuations', async () => {
    // One continuation relays the ten turns: about 100,000 prompt tokens, some $0.10.
    const probe = await concurrently(1, () => post('/v1/responses', unlimited, continuation(previous)));
    const oneRequest = probe.billed[0]!;
    expect(oneRequest).toBeGreaterThan((TURNS * TURN_BYTES * PROMPT_NANO) / 4);
    const budget = Math.round(2.5 * oneRequest);
    const { key, id } = await client.createToken('continuations, budget', { budget_usd: budget / 1e9 });
    const {
      served,
      refused,
      billed: spent,
    } = await concurrently(20, () => post('/v1/responses', key, continuation(previous)));
    expect(served.length).toBeGreaterThanOrEqual(2);
    expect(served.length).toBeLessThanOrEqual(3);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(['budget_exceeded', 'budget_held_by_requests_in_flight']).toContain(answer.body.error.code);
    }
    const total = spent.reduce((sum, cost) => sum + cost, 0);
    expect(total).toBeLessThanOrEqual(budget + Math.max(...spent));
    expect(Math.round((await listed(id)).spent_usd * 1e9)).toBe(total);
  });

  it('overshoots a token quota by at most one of 20 concurrent continuations', async () => {
    const oneRequest = Math.ceil((TURNS * TURN_BYTES) / 4);
    const { key, id } = await client.createToken('continuations, quota', { quota: Math.round(2.5 * oneRequest) });
    const { served, refused } = await concurrently(20, () => post('/v1/responses', key, continuation(previous)));
    const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
    const largest = Math.max(...served.map((answer) => answer.body.usage.total_tokens));
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(3);
    expect(used).toBeLessThanOrEqual(Math.round(2.5 * oneRequest) + largest);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(['insufficient_quota', 'quota_held_by_requests_in_flight']).toContain(answer.body.error.code);
    }
    expect((await listed(id)).used_tokens).toBe(used);
  });

  it('counts the earlier turns against a TPM limit when the request starts', async () => {
    // A minute boundary in the middle would start a new window: begin early in one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    const oneRequest = Math.ceil((TURNS * TURN_BYTES) / 4);
    const { key } = await client.createToken('continuations, tpm', { tpm_limit: Math.round(2.5 * oneRequest) });
    const { served, refused } = await concurrently(20, () => post('/v1/responses', key, continuation(previous)));
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(3);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.body.error.code).toBe('rate_limit_exceeded');
    }
  });
});

describe('chat `n` holds every choice (embedded)', () => {
  it('overshoots a key budget by at most one of 20 concurrent requests for 128 choices', async () => {
    // 128 choices of up to 100 tokens: 12,800 completion tokens, some $0.0256 a request.
    const oneRequest = 128 * 100 * COMPLETION_NANO;
    const budget = Math.round(2.5 * oneRequest);
    const { key, id } = await client.createToken('n, budget', { budget_usd: budget / 1e9 });
    const {
      served,
      refused,
      billed: spent,
    } = await concurrently(20, () => post('/v1/chat/completions', key, manyChoices));
    expect(served.length).toBeGreaterThanOrEqual(2);
    expect(served.length).toBeLessThanOrEqual(3);
    expect(served[0]!.body.choices).toHaveLength(128);
    for (const answer of refused) expect(answer.status).toBe(429);
    const total = spent.reduce((sum, cost) => sum + cost, 0);
    expect(total).toBeLessThanOrEqual(budget + Math.max(...spent));
    expect(Math.round((await listed(id)).spent_usd * 1e9)).toBe(total);
  });

  it('overshoots a token quota by at most one of 20 concurrent requests for 128 choices', async () => {
    const quota = Math.round(2.5 * 128 * 100);
    const { key } = await client.createToken('n, quota', { quota });
    const { served, refused } = await concurrently(20, () => post('/v1/chat/completions', key, manyChoices));
    const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
    expect(served.length).toBeGreaterThanOrEqual(2);
    expect(served.length).toBeLessThanOrEqual(3);
    expect(used).toBeLessThanOrEqual(quota + Math.max(...served.map((answer) => answer.body.usage.total_tokens)));
    for (const answer of refused) expect(answer.status).toBe(429);
  });
});
