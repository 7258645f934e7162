/**
 * Upstream usage figures are hostile input too: counts like 1e300, 1.7e308, 1.5, -3, "abc", {}, null
 * or a cache count larger than the prompt, from either channel kind, streamed and not, on both
 * endpoints (same format and converted). Every such request is still answered, its tokens counted
 * with the tokenizer, its usage event marked `estimated` with the reason, and the overview's totals
 * and the key's usage stay finite whole numbers. A sound usage next to them is counted as sent.
 * Outcome counts go to test/artifacts/fuzz-report/hostile-usage.json.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { isTokenCount, MAX_TOKENS_PER_FIELD } from '../../gateway/providers/usage-check.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type ScriptedRequest, type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';
import { Tally } from './fuzz-support.ts';

type Field = 'prompt' | 'completion' | 'cached';
/** What the next upstream reply reports: `value` in place of one of its counts. */
let hostile: { field: Field; value: unknown } | null = null;

let harness: Harness;
let upstream: ScriptedUpstream;
let console: ConsoleClient;
let key: string;
const tally = new Tally();
let sent = 0;

const TEXT = 'Hello there, friend.';

function openAIUsage(): Record<string, unknown> {
  const usage: Record<string, unknown> = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 };
  if (hostile?.field === 'prompt') usage['prompt_tokens'] = hostile.value;
  if (hostile?.field === 'completion') usage['completion_tokens'] = hostile.value;
  if (hostile?.field === 'cached') usage['prompt_tokens_details'] = { cached_tokens: hostile.value };
  return usage;
}

function anthropicUsage(): Record<string, unknown> {
  const usage: Record<string, unknown> = { input_tokens: 11, output_tokens: 5 };
  if (hostile?.field === 'prompt') usage['input_tokens'] = hostile.value;
  if (hostile?.field === 'completion') usage['output_tokens'] = hostile.value;
  if (hostile?.field === 'cached') usage['cache_read_input_tokens'] = hostile.value;
  return usage;
}

function reply({ path, body }: ScriptedRequest) {
  const model = String(body['model']);
  if (path === '/v1/messages') {
    const usage = anthropicUsage();
    if (body['stream'] !== true) {
      const message = {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: TEXT }],
      };
      return { status: 200, json: { ...message, stop_reason: 'end_turn', stop_sequence: null, usage } };
    }
    const { output_tokens, ...startUsage } = usage;
    const events: Array<Record<string, unknown>> = [
      {
        type: 'message_start',
        message: {
          id: 'msg_01',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          usage: { ...startUsage, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: TEXT } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens } },
      { type: 'message_stop' },
    ];
    return {
      status: 200 as const,
      frames: events.map((event) => `event: ${event['type']}\ndata: ${JSON.stringify(event)}`),
    };
  }
  const usage = openAIUsage();
  const base = { id: 'chatcmpl-1', created: 1, model };
  if (body['stream'] !== true) {
    const choice = { index: 0, message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' };
    return { status: 200, json: { ...base, object: 'chat.completion', choices: [choice], usage } };
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}`;
  return {
    status: 200 as const,
    frames: [
      chunk([{ index: 0, delta: { role: 'assistant', content: TEXT }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
      chunk([], { usage }),
      'data: [DONE]',
    ],
  };
}

beforeAll(async () => {
  upstream = await startScriptedUpstream(reply);
  harness = await startHarness({
    extraChannels: [
      { name: 'usage-openai', type: 'openai', models: ['usage-oa'], baseUrl: `${upstream.url}/v1` },
      { name: 'usage-anthropic', type: 'anthropic', models: ['usage-an'], baseUrl: upstream.url },
    ],
  });
  console = new ConsoleClient(harness.baseUrl);
  await console.register('hostile-usage@example.com');
  key = (await console.createToken('usage')).key;
});

afterAll(async () => {
  tally.write('hostile-usage', { requests: sent });
  await harness?.stop();
  await upstream?.close();
});

const routes = (['chat', 'messages'] as const).flatMap((endpoint) =>
  ['usage-oa', 'usage-an'].flatMap((model) => [false, true].map((stream) => ({ endpoint, model, stream }))),
);

/** One request; resolves to its request id once its answer has been read whole. */
async function send(endpoint: 'chat' | 'messages', model: string, stream: boolean, property: string): Promise<string> {
  const chat = endpoint === 'chat';
  const response = await fetch(`${harness.baseUrl}/v1/${chat ? 'chat/completions' : 'messages'}`, {
    method: 'POST',
    headers: chat
      ? { 'content-type': 'application/json', authorization: `Bearer ${key}` }
      : { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, stream, max_tokens: 32, messages: [{ role: 'user', content: 'Say hello to me' }] }),
  });
  const text = await response.text();
  sent++;
  tally.record(property, response.status);
  expect(response.status, `${endpoint} ${model} stream=${stream}: ${text.slice(0, 300)}`).toBe(200);
  expect(text).toContain(TEXT);
  // The client did not ask for the usage chunk: it stays hidden whether its figures were believed or not.
  if (chat && stream && model === 'usage-oa') expect(text).not.toContain('"choices":[]');
  return response.headers.get('x-request-id')!;
}

async function usageEvents(): Promise<Map<string, UsageRecorded>> {
  await harness.runtime.publisher.flush();
  const usage = new Map<string, UsageRecorded>();
  for (const event of loggedEvents(harness.dataDirectory)) {
    if (event.type === 'usage.recorded') usage.set(event.body.requestId, event);
  }
  return usage;
}

function expectCountedHere(event: UsageRecorded | undefined, label: string): void {
  expect(event, label).toBeDefined();
  const body = event!.body;
  expect(body.source, label).toBe('estimated');
  expect(body.usageRefused, label).toMatch(/^usage/);
  for (const count of [body.promptTokens, body.completionTokens, body.cachedTokens, body.cacheWriteTokens]) {
    expect(isTokenCount(count), `${label}: ${JSON.stringify(body)}`).toBe(true);
  }
  // The tokenizer's count of the prompt, not zero and not the upstream's figure.
  expect(body.promptTokens, label).toBeGreaterThan(3);
  expect(body.promptTokens, label).toBeLessThan(100);
}

describe('hostile usage figures from the upstream', () => {
  const cases: Array<[string, Field, unknown]> = [
    ['1e300', 'prompt', 1e300],
    ['1.7e308', 'prompt', 1.7e308],
    ['1.5', 'prompt', 1.5],
    ['-3', 'prompt', -3],
    ['"abc"', 'prompt', 'abc'],
    ['{}', 'prompt', {}],
    ['null', 'prompt', null],
    ['1.7e308 output tokens', 'completion', 1.7e308],
    ['huge cached tokens', 'cached', 5e9],
  ];

  it.each(cases)('%s: counted with the tokenizer and marked estimated, every path', async (label, field, value) => {
    hostile = { field, value };
    const ids: Array<[string, string]> = [];
    for (const { endpoint, model, stream } of routes) {
      ids.push([await send(endpoint, model, stream, label), `${label} ${endpoint} ${model} stream=${stream}`]);
    }
    const usage = await usageEvents();
    for (const [id, where] of ids) expectCountedHere(usage.get(id), where);
  });

  it('a null cached count is taken as none reported, every path', async () => {
    hostile = { field: 'cached', value: null };
    const ids: Array<[string, string]> = [];
    for (const { endpoint, model, stream } of routes) {
      ids.push([
        await send(endpoint, model, stream, 'null cached'),
        `null cached ${endpoint} ${model} stream=${stream}`,
      ]);
    }
    const usage = await usageEvents();
    for (const [id, where] of ids) {
      const body = usage.get(id)?.body;
      expect(body?.source, where).toBe('upstream');
      expect(body?.cachedTokens, where).toBe(0);
    }
  });

  it('any value that is not a count, in any field, is refused the same way (fast-check)', async () => {
    const notACount = fc
      .oneof(
        fc.double({ noNaN: true }),
        fc.integer({ min: -1e12, max: -1 }),
        fc.integer({ min: MAX_TOKENS_PER_FIELD + 1, max: Number.MAX_SAFE_INTEGER }),
        fc.string({ maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.integer(), { maxLength: 2 }),
        fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
      )
      .filter((value) => !isTokenCount(JSON.parse(JSON.stringify(value)) as unknown));
    await fc.assert(
      fc.asyncProperty(
        notACount,
        fc.constantFrom<Field>('prompt', 'completion', 'cached'),
        fc.constantFrom(...routes),
        async (value, field, { endpoint, model, stream }) => {
          // A cached count of null is both formats' word for "none reported" (Anthropic's `Usage` types it
          // `number | null`): it counts as 0 (the test below), so it is no hostile value there.
          fc.pre(!(field === 'cached' && JSON.parse(JSON.stringify(value)) === null));
          hostile = { field, value };
          const id = await send(endpoint, model, stream, 'random non-count');
          expectCountedHere(
            (await usageEvents()).get(id),
            `${JSON.stringify(value)} in ${field}, ${endpoint} ${model}`,
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a sound usage is still counted as sent, and every total stays a finite whole number', async () => {
    hostile = null;
    const ids: string[] = [];
    for (const { endpoint, model, stream } of routes) ids.push(await send(endpoint, model, stream, 'sound usage'));
    const usage = await usageEvents();
    for (const id of ids) {
      expect(usage.get(id)?.body).toMatchObject({ promptTokens: 11, completionTokens: 5, source: 'upstream' });
      expect(usage.get(id)?.body.usageRefused).toBeUndefined();
    }
    await harness.runtime.stores.sync.caughtUp();
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const overview = (await console.call('GET', `/api/usage/overview?${range}`)).body;
    expect(overview.totals.calls).toBe(sent);
    for (const total of [
      overview.totals.prompt_tokens,
      overview.totals.completion_tokens,
      overview.totals.total_tokens,
    ]) {
      expect(Number.isSafeInteger(total), JSON.stringify(overview.totals)).toBe(true);
    }
    expect(overview.totals.total_tokens).toBeLessThan(sent * 200);
    const token = (await console.call('GET', '/api/tokens')).body.items[0];
    expect(Number.isSafeInteger(token.used_tokens), JSON.stringify(token)).toBe(true);
    expect(token.used_tokens).toBe(overview.totals.total_tokens);
  });
});
