/**
 * Compaction and input-token counting with the official `openai` client, the way Codex asks for
 * them: `responses.compact`, a `compaction_trigger` input item (whole and streamed) and
 * `responses.inputTokens.count`. A channel that is OpenAI's own Responses API receives them as they
 * are; an anthropic channel is compacted by the gateway's summarising call, whose sealed summary
 * goes back upstream as a message when the compaction item returns. Each is recorded under its own
 * endpoint, with the summarising call's usage.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { compactedResponseSchema, inputTokensResponseSchema } from '../../contracts/openai/responses-compaction.ts';
import { SUMMARY_PREFIX } from '../../gateway/providers/responses/compaction.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let openai: OpenAI;
let published: GatewayEvent[];
const native = 'gpt-5.1-codex';
const converted = 'claude-sonnet-4-5';
/** What the anthropic fixtures answer: here, the summary. */
const summary = 'Hello! How can I help you today?';
const history: OpenAI.Responses.ResponseInputItem[] = [
  { role: 'user', content: 'Fix the failing test in parser.rs' },
  { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"cargo test"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'test parser::empty ... FAILED' },
  { role: 'assistant', content: 'The empty-input case panics; I will guard it.' },
];
const trigger: OpenAI.Responses.ResponseInputItem[] = [...history, { type: 'compaction_trigger' }];

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [{ name: 'openai-responses', type: 'openai', models: [native], responsesApi: true }],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('responses-compaction@example.com');
  const key = (await console.createToken('compaction')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  const publisher = harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    published.push(...trafficFacts(events));
    publish(...events);
  };
});
afterAll(async () => harness.stop());
beforeEach(() => {
  harness.upstream.reset();
  published = [];
});

async function recorded(): Promise<{ completed: Record<string, any>; usage: Record<string, any> | undefined }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const completed = published.find((event) => event.type === 'request.completed');
    if (completed) {
      // the usage fact is published with its request, when there is one
      const usage = published.find((event) => event.type === 'usage.recorded');
      return { completed: completed.body as never, usage: usage?.body as never };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not recorded in time');
}

const sent = (index = 0) => harness.upstream.requests[index]!;

describe('a channel that is OpenAI’s own Responses API', () => {
  it('responses.compact goes upstream as sent and its answer comes back untouched, usage recorded', async () => {
    const compacted = await openai.responses.compact({ model: native, input: history });
    expect(sent().path).toBe('/v1/responses/compact');
    expect(sent().body).toEqual({ model: native, input: history });
    expect(compacted).toEqual(loadJsonFixture('openai-responses-compact').body);
    const { completed, usage } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses.compact', status: 200, stream: false });
    expect(usage).toMatchObject({ promptTokens: 1873, completionTokens: 389, source: 'upstream' });
  });

  it('a compaction_trigger request goes upstream as sent; its compaction item comes back', async () => {
    const response = await openai.responses.create({ model: native, input: trigger, store: false });
    expect(sent().path).toBe('/v1/responses');
    expect(sent().body).toEqual({ model: native, input: trigger, store: false });
    expect(response.output).toEqual((loadJsonFixture('openai-responses-compaction').body as any).output);
    const { completed, usage } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses', status: 200 });
    expect(usage).toMatchObject({ promptTokens: 2051, completionTokens: 412 });
  });

  it('streamed, its events go through with the compaction item in output_item.done and response.completed', async () => {
    const stream = openai.responses.stream({ model: native, input: trigger, store: false });
    const done: string[] = [];
    stream.on('response.output_item.done', (event) => done.push(event.item.type));
    const final = await stream.finalResponse();
    expect(done).toEqual(['compaction']);
    expect(final.output.map((item) => item.type)).toEqual(['compaction']);
    expect(sent().body).toMatchObject({ input: trigger, stream: true });
    const { usage } = await recorded();
    expect(usage).toMatchObject({ promptTokens: 2052, completionTokens: 412, source: 'upstream' });
  });

  it('responses.inputTokens.count is counted upstream and recorded without usage', async () => {
    const counted = await openai.responses.inputTokens.count({ model: native, input: history });
    expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 1187 });
    expect(sent().path).toBe('/v1/responses/input_tokens');
    expect(sent().body).toEqual({ model: native, input: history });
    const { completed, usage } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses.input_tokens', status: 200 });
    expect(usage).toBeUndefined();
  });
});

describe('an anthropic channel: the gateway compacts', () => {
  function expectSummarisingCall(index = 0) {
    const request = sent(index);
    const body = request.body as { tools?: unknown; messages: unknown; system: unknown };
    expect(request.path).toBe('/v1/messages');
    expect(body.tools).toBeUndefined();
    const prompt = JSON.stringify(body.messages);
    expect(prompt).toContain('User: Fix the failing test in parser.rs');
    expect(prompt).toContain('cargo test');
    expect(prompt).toContain('test parser::empty ... FAILED');
    expect(prompt).not.toContain('compaction_trigger');
    expect(JSON.stringify(body.system)).toContain('compact');
  }

  function expectSealed(item: OpenAI.Responses.ResponseOutputItem) {
    expect(item.type).toBe('compaction');
    const sealed = (item as OpenAI.Responses.ResponseCompactionItem).encrypted_content;
    expect(sealed).toMatch(/^gwc1\./);
    expect(sealed).not.toContain('Hello');
    return sealed;
  }

  it('a compaction_trigger is answered with exactly one compaction item, the summarising call’s usage recorded', async () => {
    const response = await openai.responses.create({ model: converted, input: trigger });
    expect(response.status).toBe('completed');
    expect(response.output).toHaveLength(1);
    expectSealed(response.output[0]!);
    expect(response.output_text).toBe('');
    expectSummarisingCall();
    const fixture = loadJsonFixture('anthropic-text').body as any;
    expect(response.usage).toMatchObject({ input_tokens: fixture.usage.input_tokens, output_tokens: 12 });
    const { completed, usage } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses', status: 200 });
    expect(usage).toMatchObject({ promptTokens: fixture.usage.input_tokens, completionTokens: 12, source: 'upstream' });
  });

  it('streamed: one compaction item in output_item.added and .done and response.completed, no summary text', async () => {
    const stream = await openai.responses.create({ model: converted, input: trigger, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).not.toContain('response.output_text.delta');
    const added = events.filter((event) => event.type === 'response.output_item.added');
    const done = events.filter((event) => event.type === 'response.output_item.done');
    expect(added).toHaveLength(1);
    expect(done).toHaveLength(1);
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output).toHaveLength(1);
    expect(completed.response.output[0]).toEqual((done[0] as OpenAI.Responses.ResponseOutputItemDoneEvent).item);
    expectSealed(completed.response.output[0]!);
    expect(JSON.stringify(events)).not.toContain(summary);
    expectSummarisingCall();
    const { usage } = await recorded();
    expect(usage).toMatchObject({ promptTokens: 16, completionTokens: 13 });
  });

  it('the next request carrying the compaction item sends the summary upstream in its place', async () => {
    const compacted = await openai.responses.create({ model: converted, input: trigger, store: false });
    const item = compacted.output[0] as OpenAI.Responses.ResponseCompactionItem;
    harness.upstream.reset();
    await openai.responses.create({
      model: converted,
      input: [item, { role: 'user', content: 'Now run the tests again' }],
    });
    const body = JSON.stringify(sent().body);
    expect(body).toContain(JSON.stringify(SUMMARY_PREFIX + summary).slice(1, -1));
    expect(body).toContain('Now run the tests again');
    expect(body).not.toContain('gwc1.');
  });

  it('continuing a compacted turn by previous_response_id sends the summary, not the turns before it', async () => {
    const compacted = await openai.responses.create({ model: converted, input: trigger });
    harness.upstream.reset();
    await openai.responses.create({ model: converted, previous_response_id: compacted.id, input: 'Go on' });
    const body = JSON.stringify(sent().body);
    expect(body).toContain('Go on');
    expect(body).toContain('This is its summary');
    expect(body).not.toContain('cargo test');
    expect(harness.upstream.requests).toHaveLength(1);
  });

  it('responses.compact answers the user’s messages and one compaction item, usage recorded', async () => {
    const compacted = await openai.responses.compact({ model: converted, input: history });
    expect(compactedResponseSchema.parse(compacted)).toBeTruthy();
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'compaction']);
    expect(compacted.output[0]).toMatchObject({ role: 'user' });
    expectSealed(compacted.output[1]!);
    expectSummarisingCall();
    const { completed, usage } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses.compact', status: 200 });
    expect(usage).toMatchObject({ promptTokens: 14, completionTokens: 12, source: 'upstream' });
  });

  it('responses.inputTokens.count is the gateway’s estimate, marked as one, and calls no upstream', async () => {
    const { data, response } = await openai.responses.inputTokens
      .count({ model: converted, input: history })
      .withResponse();
    expect(inputTokensResponseSchema.parse(data).input_tokens).toBeGreaterThan(20);
    expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(harness.upstream.requests).toHaveLength(0);
    const { completed } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses.input_tokens', status: 200 });
  });

  it('a compaction item that was altered is refused before any upstream call', async () => {
    const compacted = await openai.responses.create({ model: converted, input: trigger, store: false });
    const item = compacted.output[0] as OpenAI.Responses.ResponseCompactionItem;
    const altered = { ...item, encrypted_content: `${item.encrypted_content.slice(0, -4)}AAAA` };
    harness.upstream.reset();
    const error = await openai.responses
      .create({ model: converted, input: [altered, { role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ code: 'invalid_compaction', param: 'input' });
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
