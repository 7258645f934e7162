/**
 * A store that cannot keep up (20 ms per event appended, about 50 requests a second, as a store
 * worker starved of CPU by other processes would be) behind a tiny event queue (EVENT_QUEUE_LIMIT=200 events, so the soft
 * mark where requests start to wait is 40):
 * - clients that wait for their answers (a closed loop) are slowed to the store's pace, never refused:
 *   every request answered 200 (the old relay refused them with 503 event_log_behind once 200
 *   events were queued, and the refusals came back at once);
 * - arrivals that do not wait (open-loop overload) are shed with 503 event_log_behind and retry-after
 *   beyond the hard mark, while the store keeps serving the ones it has room for;
 * - nothing is lost or counted twice: the usage overview counts every answer, and its calls without
 *   an error are the 2xx answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const CLIENTS = 16;
const REQUESTS_PER_CLIENT = 20;
const OPEN_LOOP_ARRIVALS = 400;

let harness: Harness;
let console: ConsoleClient;
let key: string;
const answers = new Map<number, number>();

beforeAll(async () => {
  // Read by the store worker when it starts (its environment is a copy of this process's).
  process.env.GATEWAY_TEST_STORE_EVENT_DELAY_MS = '20';
  try {
    harness = await startHarness({ environment: { EVENT_QUEUE_LIMIT: '200' } });
  } finally {
    delete process.env.GATEWAY_TEST_STORE_EVENT_DELAY_MS;
  }
  console = new ConsoleClient(harness.baseUrl);
  await console.register(`backpressure-${Date.now()}@example.com`);
  key = (await console.call('POST', '/api/tokens', { name: 'backpressure' })).body.key;
});

afterAll(() => harness?.stop());

async function send(): Promise<{ status: number; retryAfter: string | null; code: string | null }> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = await response.json();
  answers.set(response.status, (answers.get(response.status) ?? 0) + 1);
  return { status: response.status, retryAfter: response.headers.get('retry-after'), code: body.error?.code ?? null };
}

describe('the relay paced by a slow event log', () => {
  it('serves a closed-loop burst more slowly instead of refusing any of it', async () => {
    const statuses: number[] = [];
    const client = async () => {
      for (let index = 0; index < REQUESTS_PER_CLIENT; index++) statuses.push((await send()).status);
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const seconds = (performance.now() - started) / 1000;
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(statuses).toHaveLength(CLIENTS * REQUESTS_PER_CLIENT);
    // Paced by the store: 320 events (one per request) at 20 ms each, all but the 40 below the soft
    // mark waited for.
    expect(seconds).toBeGreaterThan(4);
  }, 60_000);

  it('sheds open-loop overload with 503 event_log_behind and retry-after, and still serves', async () => {
    const outcomes = await Promise.all(Array.from({ length: OPEN_LOOP_ARRIVALS }, send));
    const refused = outcomes.filter((outcome) => outcome.status === 503);
    const served = outcomes.filter((outcome) => outcome.status === 200);
    expect(served.length + refused.length).toBe(OPEN_LOOP_ARRIVALS);
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused) {
      expect(refusal.code).toBe('event_log_behind');
      expect(refusal.retryAfter).toBe('1');
    }
    // Up to the soft mark at once, and those that fit below the hard mark as the store drains.
    expect(served.length).toBeGreaterThanOrEqual(40);
  }, 60_000);

  it('records every answer once: the overview counts them all, and its calls without error are the 2xx', async () => {
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const { totals } = (await console.call('GET', `/api/usage/overview?${range}`)).body;
    const all = [...answers.values()].reduce((sum, count) => sum + count, 0);
    expect(all).toBe(CLIENTS * REQUESTS_PER_CLIENT + OPEN_LOOP_ARRIVALS);
    expect(totals.calls).toBe(all);
    expect(totals.calls - totals.errors).toBe(answers.get(200));
  }, 60_000);
});
