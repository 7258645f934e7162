/**
 * Usage: every request reaching the gateway is an event (refused ones too), the data overview shows
 * the upstream's exact token counts by hour and by model, and a restart on the same data directory
 * loses nothing and counts nothing twice.
 */

import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let console: ConsoleClient;
let key: string;
let tokenId: string;

const hello = [{ role: 'user' as const, content: 'hi' }];
const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

async function settle(): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

function eventCounts(): Record<string, number> {
  const database = new Database(path.join(harness.dataDirectory, 'gateway.db'), { readonly: true });
  try {
    const rows = database.prepare('SELECT type, count(*) AS count FROM events GROUP BY type').all() as Array<{
      type: string;
      count: number;
    }>;
    return Object.fromEntries(rows.map((row) => [row.type, row.count]));
  } finally {
    database.close();
  }
}

beforeAll(async () => {
  harness = await startHarness();
  console = new ConsoleClient(harness.baseUrl);
  await console.register('usage@example.com');
  const created = await console.createToken('usage');
  key = created.key;
  tokenId = created.id;
});
afterAll(async () => harness.stop());

describe('usage in the data overview', () => {
  // Upstream counts from the fixtures: what the overview must show exactly.
  const openaiText = (loadJsonFixture('openai-text').body as any).usage;
  const anthropicText = (loadJsonFixture('anthropic-text').body as any).usage;

  it('counts calls and the exact upstream tokens, by hour and by model, and refused requests as errors', async () => {
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: hello }).finalChatCompletion();
    await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: hello });
    await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: hello, temperature: 9 })
      .catch(() => undefined);
    await settle();

    const overview = (await console.call('GET', `/api/usage/overview?${range()}`)).body;
    const streamUsage = { prompt_tokens: 23, completion_tokens: 12 };
    const gptPrompt = 2 * openaiText.prompt_tokens + streamUsage.prompt_tokens;
    const gptCompletion = 2 * openaiText.completion_tokens + streamUsage.completion_tokens;
    const claudePrompt =
      anthropicText.input_tokens + anthropicText.cache_read_input_tokens + anthropicText.cache_creation_input_tokens;
    // The price database's prices (neither fixture has cached tokens; cost.unit.spec.ts covers them):
    // gpt-4o-mini 0.15 and 0.60 USD per million, claude-sonnet-4-5 3 and 15, in nano-dollars a token.
    const gptCost = gptPrompt * 150 + gptCompletion * 600;
    const claudeCost = claudePrompt * 3000 + anthropicText.output_tokens * 15_000;
    expect(overview.totals).toEqual({
      calls: 5,
      errors: 1,
      prompt_tokens: gptPrompt + claudePrompt,
      completion_tokens: gptCompletion + anthropicText.output_tokens,
      total_tokens: gptPrompt + claudePrompt + gptCompletion + anthropicText.output_tokens,
      cost_usd: (gptCost + claudeCost) / 1e9,
      unpriced_requests: 0,
      // the request with temperature 9 was refused by validation, before any channel was picked
      refused_requests: 1,
      cached_tokens: anthropicText.cache_read_input_tokens,
      cache_write_tokens: anthropicText.cache_creation_input_tokens,
    });
    const byModel = Object.fromEntries(overview.by_model.map((row: any) => [row.model, row]));
    expect(byModel['gpt-4o-mini']).toMatchObject({
      calls: 4,
      errors: 1,
      refused_requests: 1,
      prompt_tokens: gptPrompt,
      completion_tokens: gptCompletion,
    });
    expect(byModel['claude-sonnet-4-5']).toMatchObject({ calls: 1, prompt_tokens: claudePrompt });
    expect(byModel['gpt-4o-mini'].cost_usd).toBe(gptCost / 1e9);
    expect(byModel['claude-sonnet-4-5'].cost_usd).toBe(claudeCost / 1e9);
    expect(overview.by_token[0]).toMatchObject({ token_id: tokenId, cost_usd: (gptCost + claudeCost) / 1e9 });
    const costs = (await console.call('GET', `/api/usage/logs?${range()}`)).body.items.map(
      (item: any) => item.cost_usd,
    );
    // Newest first: the refused request (no tokens), the Anthropic one, then the three OpenAI ones.
    expect(costs).toEqual([
      0,
      claudeCost / 1e9,
      (streamUsage.prompt_tokens * 150 + streamUsage.completion_tokens * 600) / 1e9,
      (openaiText.prompt_tokens * 150 + openaiText.completion_tokens * 600) / 1e9,
      (openaiText.prompt_tokens * 150 + openaiText.completion_tokens * 600) / 1e9,
    ]);
    expect(overview.granularity).toBe('hour');
    expect(overview.series.reduce((sum: number, row: any) => sum + row.calls, 0)).toBe(5);
    const daily = (await console.call('GET', `/api/usage/overview?${range()}&granularity=day`)).body;
    expect(daily.totals).toEqual(overview.totals);
    expect(daily.series.every((row: any) => row.bucket.endsWith('T00:00:00.000Z'))).toBe(true);
  });

  it('records every request as an event, refused ones too, and shows them in the usage log', async () => {
    const before = eventCounts()['request.completed'] ?? 0;
    await fetch(`${harness.baseUrl}/v1/chat/completions`, { method: 'POST', body: '{}' });
    await fetch(`${harness.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: 'not json',
    });
    await settle();
    expect(eventCounts()['request.completed']).toBe(before + 2);
    const logs = (await console.call('GET', '/api/usage/logs?limit=2')).body;
    expect(logs.items).toHaveLength(2);
    expect(logs.items[0]).toMatchObject({ endpoint: 'messages', status: 400, token_id: tokenId });
    expect(logs.next_cursor).toBeTruthy();
    const next = (await console.call('GET', `/api/usage/logs?limit=50&cursor=${logs.next_cursor}`)).body;
    const ids = [...logs.items, ...next.items].map((item: any) => item.request_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('shows the key last used and its tokens so far', async () => {
    const token = (await console.call('GET', '/api/tokens')).body.items[0];
    const overview = (await console.call('GET', `/api/usage/overview?${range()}`)).body;
    expect(token.used_tokens).toBe(overview.totals.total_tokens);
    expect(token.last_used_at).toBeTruthy();
  });

  it('keeps users apart: another user sees none of this usage', async () => {
    const other = new ConsoleClient(harness.baseUrl);
    await other.register('other-usage@example.com');
    const overview = (await other.call('GET', `/api/usage/overview?${range()}`)).body;
    expect(overview.totals.calls).toBe(0);
    const forbidden = await other.call('GET', `/api/usage/overview?${range()}&user_id=all`);
    expect(forbidden.status).toBe(403);
  });

  it('refuses a bad range with the field named', async () => {
    const response = await console.call('GET', '/api/usage/overview?from=yesterday&to=now');
    expect(response.status).toBe(400);
    expect(response.body.error.field).toBe('from');
  });

  it('loses nothing and counts nothing twice across a restart', async () => {
    const before = (await console.call('GET', `/api/usage/overview?${range()}`)).body.totals;
    const events = eventCounts();
    await harness.restart();
    console = new ConsoleClient(harness.baseUrl);
    await console.call('POST', '/api/auth/login', { email: 'usage@example.com', password: 'correct horse battery' });
    expect((await console.call('GET', `/api/usage/overview?${range()}`)).body.totals).toEqual(before);
    expect(eventCounts()).toEqual(events);
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await settle();
    const after = (await console.call('GET', `/api/usage/overview?${range()}`)).body.totals;
    expect(after.calls).toBe(before.calls + 1);
    expect(after.prompt_tokens).toBe(before.prompt_tokens + openaiText.prompt_tokens);
  });
});
