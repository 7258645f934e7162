/**
 * `/v1/responses` on an openai channel with `responses_api: true`: relayed as is to the upstream's own
 * Responses API (the fake upstream's recorded shapes), its bytes back untouched, its usage recorded.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, trafficFacts } from '../../contracts/events/index.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

let harness: Harness;
let openai: OpenAI;
let published: GatewayEvent[];
const model = 'gpt-4.1-mini';

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [{ name: 'openai-responses', type: 'openai', models: [model], responsesApi: true }],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('responses-native@example.com');
  const key = (await console.createToken('responses native')).key;
  openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  const publisher = harness.runtime.publisher;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = (...events) => {
    // what the projections apply: a request's usage as a usage.recorded of its own
    published.push(...trafficFacts(events));
    publish(...events);
  };
});
afterAll(async () => harness.stop());
beforeEach(() => {
  harness.upstream.reset();
  published = [];
});

async function recorded(): Promise<{ usage: Record<string, unknown>; completed: Record<string, unknown> }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const usage = published.find((event) => event.type === 'usage.recorded');
    const completed = published.find((event) => event.type === 'request.completed');
    if (usage && completed) return { usage: usage.body as never, completed: completed.body as never };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not recorded in time');
}

describe('an openai channel with responses_api: true', () => {
  it('receives the request as is at /v1/responses, built-in tools included, and its reply goes back untouched', async () => {
    const request = {
      model,
      input: 'Hello',
      tools: [{ type: 'web_search' as const }],
      metadata: { run: '7' },
    };
    // The web search answers with text here: the point is that the channel receives the tool.
    harness.upstream.next('text');
    const response = await openai.responses.create(request);
    const expected = loadJsonFixture('openai-responses-text').body as OpenAI.Responses.Response;
    const sent = harness.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY_OPENAI}`);
    expect(sent.body).toEqual(request);
    const { output_text: _added, ...received } = response;
    expect(received).toEqual(expected);
    const { usage, completed } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses', status: 200 });
    expect(usage).toMatchObject({ promptTokens: 37, completionTokens: 11, source: 'upstream' });
  });

  it('streams the upstream events through; the usage of response.completed is recorded', async () => {
    const stream = openai.responses.stream({ model, input: 'Hello' });
    let deltas = '';
    stream.on('response.output_text.delta', (event) => {
      deltas += event.delta;
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello! How can I help you today?');
    expect(deltas).toBe(final.output_text);
    expect((harness.upstream.requests[0]!.body as Record<string, unknown>)['stream']).toBe(true);
    const { usage, completed } = await recorded();
    expect(completed).toMatchObject({ endpoint: 'responses', stream: true });
    expect(usage).toMatchObject({ promptTokens: 38, completionTokens: 11, source: 'upstream' });
  });
});
