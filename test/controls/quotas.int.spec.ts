/**
 * Key token quotas under concurrency on the embedded store: each request holds an estimate of its
 * tokens before it is relayed and settles to its real usage, so 200 concurrent requests on a key with
 * a quota of 30 tokens use at most the quota plus the one request that crossed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { withSlowSettlement } from '../support/slow-ledger.ts';

let harness: Harness;
let consoleClient: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness();
  consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register('quotas@example.com');
});
afterAll(async () => harness.stop());

async function chat(key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function usedTokensOf(tokenId: string): Promise<number> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  const { body } = await consoleClient.call('GET', '/api/tokens');
  return body.items.find((item: { id: string }) => item.id === tokenId).used_tokens;
}

describe('key token quotas under concurrency (embedded)', () => {
  it('lets 200 concurrent requests on a quota of 30 use at most the quota plus one request', async () => {
    const { key, id } = await consoleClient.createToken('quota 30', { quota: 30 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => chat(key)));
    const served = answers.filter((answer) => answer.status === 200);
    const oneRequest = served[0]!.body.usage.total_tokens as number;
    const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(30 + oneRequest);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(['insufficient_quota', 'quota_held_by_requests_in_flight']).toContain(refused.body.error.code);
    }
    expect(await usedTokensOf(id)).toBe(used);
  });

  it('refuses back-to-back requests once the settled usage reached the quota, before the projection shows it', async () => {
    const { key } = await consoleClient.createToken('quota 30, in a row', { quota: 30 });
    const statuses: number[] = [];
    for (let index = 0; index < 20; index++) statuses.push((await chat(key)).status);
    expect(statuses[0]).toBe(200);
    expect(statuses.slice(1)).toEqual(Array(19).fill(429));
  });

  it('settles each request before its answer ends, so a slow ledger never refuses the next request in a row', async () => {
    await withSlowSettlement(harness.runtime.stores.quotas, 150, async () => {
      // 31 tokens a request: 0, 31, 62 and 93 used are under 100, so four are served.
      const { key } = await consoleClient.createToken('quota 100, slow ledger', { quota: 100 });
      const answers: Array<{ status: number; body: any }> = [];
      for (let index = 0; index < 5; index++) answers.push(await chat(key));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
      expect(answers[4]!.body.error.code).toBe('insufficient_quota');
    });
  });

  it('holds nothing for a key without a quota', async () => {
    const { key } = await consoleClient.createToken('no quota');
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(key)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
  });
});
