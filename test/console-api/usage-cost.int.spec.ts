/**
 * Cost through the relay, with the official SDKs: each request's usage (stored inside its
 * `request.completed`, one event per request; read by the projections as a `usage.recorded` fact)
 * carries the cost a hand computation gives (config prices over the database's, cache reads and
 * writes at their own rates, both endpoints, a conversion each way, streamed and not), an unknown
 * model is unpriced (null, counted apart), and the overview's total is the exact sum.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents, loggedRecords } from '../support/logged-events.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

const hello = [{ role: 'user' as const, content: 'hi' }];
// OpenAI's usage: 1,000 prompt tokens of which 600 cached; Anthropic's: 40 uncached input, 2,000 read
// from the cache, 500 written to it (prompt 2,540 in the gateway's count).
const openaiUsage = { prompt_tokens: 1000, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 600 } };
const anthropicUsage = {
  input_tokens: 40,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 500,
  output_tokens: 70,
};

function script(upstream: ScriptedUpstream): void {
  upstream.script = ({ path, body }) => {
    if (path === '/v1/messages') {
      return {
        status: 200,
        json: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: body['model'],
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: anthropicUsage,
        },
      };
    }
    return {
      status: 200,
      json: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: body['model'],
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { ...openaiUsage, total_tokens: 1050 },
      },
    };
  };
}

let harness: Harness;
let scripted: ScriptedUpstream;
let console: ConsoleClient;
let key: string;

beforeAll(async () => {
  scripted = await startScriptedUpstream();
  script(scripted);
  harness = await startHarness({
    extraChannels: [
      { name: 'cached-openai', type: 'openai', models: ['gpt-cached', 'mystery-model'], baseUrl: `${scripted.url}/v1` },
      { name: 'cached-anthropic', type: 'anthropic', models: ['claude-cached'], baseUrl: scripted.url },
    ],
    configLines: [
      'prices:',
      '  gpt-4o-mini: { input_per_million: 1, output_per_million: 2 }',
      '  gpt-cached: { input_per_million: 0.15, output_per_million: 0.60, cache_read_per_million: 0.075 }',
      '  claude-cached: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3, cache_write_per_million: 3.75 }',
    ],
  });
  console = new ConsoleClient(harness.baseUrl);
  await console.register('cost@example.com');
  key = (await console.createToken('cost')).key;
});
afterAll(async () => {
  await harness.stop();
  await scripted.close();
});

describe('the cost of each request', () => {
  it('is in its usage event as the hand computation gives it, and the overview sums it exactly', async () => {
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
    // The fake upstream's fixture: 21 prompt and 10 completion tokens, at the config's 1 and 2 USD
    // per million, not the database's 0.15 and 0.60.
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    await openai.chat.completions.create({ model: 'gpt-cached', messages: hello });
    await anthropic.messages.create({ model: 'claude-cached', max_tokens: 100, messages: hello });
    // Converted each way: chat completions on the Anthropic channel, messages on the OpenAI one.
    await openai.chat.completions.create({ model: 'claude-cached', messages: hello });
    await anthropic.messages.create({ model: 'gpt-cached', max_tokens: 100, messages: hello });
    // A model no price names: unpriced.
    await openai.chat.completions.create({ model: 'mystery-model', messages: hello });
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();

    const gptCached = 400 * 150 + 600 * 75 + 50 * 600; // nano-dollars
    const claudeCached = 40 * 3000 + 2000 * 300 + 500 * 3750 + 70 * 15_000;
    const expected: Record<string, number[] | null[]> = {
      'gpt-4o-mini': [21 * 1000 + 10 * 2000],
      'gpt-cached': [gptCached, gptCached],
      'claude-cached': [claudeCached, claudeCached],
      'mystery-model': [null],
    };
    const usage = loggedEvents(harness.dataDirectory).filter((event) => event.type === 'usage.recorded');
    expect(usage).toHaveLength(6);
    const byModel: Record<string, Array<number | null>> = {};
    for (const event of usage) {
      if (event.type !== 'usage.recorded') continue;
      byModel[event.body.model] = [...(byModel[event.body.model] ?? []), event.body.costNanoUsd];
      if (event.body.costNanoUsd === null) expect(event.body.price).toBeNull();
      else expect(event.body.price?.source).toBe('config');
    }
    expect(byModel).toEqual(expected);
    // As stored: one event per request, the cost inside the request's own event (docs/api.md, "Prices and cost").
    const records = loggedRecords(harness.dataDirectory);
    expect(records.filter((event) => event.type === 'usage.recorded')).toEqual([]);
    const costs = records.flatMap((event) => (event.type === 'request.completed' && event.body.usage ? [event] : []));
    expect(costs.map((event) => event.body.usage?.costNanoUsd).sort()).toEqual(
      usage.map((event) => (event.type === 'usage.recorded' ? event.body.costNanoUsd : undefined)).sort(),
    );

    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const overview = (await console.call('GET', `/api/usage/overview?${range}`)).body;
    const total = 21 * 1000 + 10 * 2000 + 2 * gptCached + 2 * claudeCached;
    expect(overview.totals).toMatchObject({ cost_usd: total / 1e9, unpriced_requests: 1, calls: 6 });
    const models = Object.fromEntries(overview.by_model.map((row: any) => [row.model, row]));
    expect(models['claude-cached']).toMatchObject({ cost_usd: (2 * claudeCached) / 1e9, unpriced_requests: 0 });
    expect(models['mystery-model']).toMatchObject({ cost_usd: 0, unpriced_requests: 1 });
    const logged = (await console.call('GET', `/api/usage/logs?${range}`)).body.items;
    expect(logged.find((item: any) => item.model_requested === 'mystery-model').cost_usd).toBeNull();
  });
});
