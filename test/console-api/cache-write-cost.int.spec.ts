/**
 * One-hour cache writes through the relay, with the official SDKs: an Anthropic upstream that writes
 * 1,000 of 1,500 cache-write tokens for an hour is charged the one-hour price for those and the
 * five-minute price for the rest, on the Messages endpoint and converted to Chat Completions, streamed
 * and not, at the config's prices and at the bundled database's; the usage log and the overview show
 * the cache writes beside the cache reads.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type ScriptedReply, type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

const hello = [{ role: 'user' as const, content: 'hi' }];
const usage = {
  input_tokens: 12,
  cache_read_input_tokens: 200,
  cache_creation_input_tokens: 1500,
  cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 1000 },
  output_tokens: 30,
};

function reply(model: unknown, stream: boolean): ScriptedReply {
  const message = { id: 'msg_1', type: 'message', role: 'assistant', model, content: [] as unknown[] };
  if (!stream) {
    const content = [{ type: 'text', text: 'ok' }];
    return { status: 200, json: { ...message, content, stop_reason: 'end_turn', stop_sequence: null, usage } };
  }
  const frame = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}`;
  const started = { ...message, stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
  return {
    status: 200,
    frames: [
      frame('message_start', { message: started }),
      frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'ok' } }),
      frame('content_block_stop', { index: 0 }),
      frame('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } }),
      frame('message_stop', {}),
    ],
  };
}

let harness: Harness;
let scripted: ScriptedUpstream;
let console: ConsoleClient;
let key: string;

beforeAll(async () => {
  scripted = await startScriptedUpstream(({ body }) => reply(body['model'], body['stream'] === true));
  harness = await startHarness({
    extraChannels: [
      {
        name: 'hour-cache',
        type: 'anthropic',
        models: ['claude-hour', 'sonnet-hour'],
        // A name of its own, so no other channel serves it; the database prices the name sent upstream.
        modelMapping: { 'sonnet-hour': 'claude-sonnet-4-5' },
        baseUrl: scripted.url,
      },
    ],
    configLines: [
      'prices:',
      '  claude-hour: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3, cache_write_per_million: 3.75, cache_write_1h_per_million: 6 }',
    ],
  });
  console = new ConsoleClient(harness.baseUrl);
  await console.register('hour-cache@example.com');
  key = (await console.createToken('hour cache')).key;
});
afterAll(async () => {
  await harness.stop();
  await scripted.close();
});

describe('one-hour cache writes', () => {
  it('are charged the one-hour price on every path, and shown in the log and the overview', async () => {
    const anthropic = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    await anthropic.messages.create({ model: 'claude-hour', max_tokens: 100, messages: hello });
    await anthropic.messages.stream({ model: 'claude-hour', max_tokens: 100, messages: hello }).finalMessage();
    await openai.chat.completions.create({ model: 'claude-hour', messages: hello });
    const chunks = await openai.chat.completions.create({
      model: 'claude-hour',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of chunks);
    // Priced by the database: Anthropic's claude-sonnet-4-5 at 3, 15, 0.3, 3.75 and, for an hour, 6 USD.
    await anthropic.messages.create({ model: 'sonnet-hour', max_tokens: 100, messages: hello });
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();

    // 12 × 3 + 200 × 0.3 + 500 × 3.75 + 1,000 × 6 + 30 × 15 micro-dollars; at the five-minute price
    // for every write it would be 1,500 nano-dollars a token less on 1,000 of them.
    const expected = 12 * 3000 + 200 * 300 + 500 * 3750 + 1000 * 6000 + 30 * 15_000;
    const recorded = loggedEvents(harness.dataDirectory).flatMap((event) =>
      event.type === 'usage.recorded' ? [event.body] : [],
    );
    expect(recorded).toHaveLength(5);
    for (const body of recorded) {
      expect(body).toMatchObject({
        promptTokens: 1712,
        cachedTokens: 200,
        cacheWriteTokens: 1500,
        cacheWrite1hTokens: 1000,
        costNanoUsd: expected,
      });
      expect(body.price?.cacheWrite1hPerMillion).toBe(6);
    }
    expect(recorded.map((body) => body.price?.source).sort()).toEqual([
      'config',
      'config',
      'config',
      'config',
      'genai-prices',
    ]);

    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const logged = (await console.call('GET', `/api/usage/logs?${range}`)).body.items;
    for (const item of logged) {
      expect(item).toMatchObject({ cached_tokens: 200, cache_write_tokens: 1500, cost_usd: expected / 1e9 });
    }
    const overview = (await console.call('GET', `/api/usage/overview?${range}`)).body;
    expect(overview.totals).toMatchObject({
      cached_tokens: 1000,
      cache_write_tokens: 7500,
      cost_usd: (5 * expected) / 1e9,
    });
  });
});
