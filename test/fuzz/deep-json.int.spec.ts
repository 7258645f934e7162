/**
 * JSON nested thousands of levels deep where the contract lets any value through (a tool's parameter
 * schema, a response_format schema, Anthropic metadata, unknown fields), on both endpoints and both
 * channel kinds: refused with 400 in the endpoint's own shape, naming the field, before any channel is
 * chosen (nothing is sent upstream, no channel is blamed). A depth just under the limit is relayed.
 * And the other way round: an upstream reply so deep that the gateway's own code overflows is a 500 of
 * the gateway, not a 502 that blames the channel, retries it and feeds its circuit breaker.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestCompleted } from '../../contracts/events/index.ts';
import { MAX_JSON_DEPTH } from '../../gateway/relay/json-depth.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';
import { deeplyNested, type RawResponse, rawRequest, Tally } from './fuzz-support.ts';

type Endpoint = '/v1/chat/completions' | '/v1/messages';

let harness: Harness;
let scripted: ScriptedUpstream;
let key: string;
const tally = new Tally();

beforeAll(async () => {
  scripted = await startScriptedUpstream();
  harness = await startHarness({
    environment: { UPSTREAM_RETRY_BACKOFF_MS: '1' },
    extraChannels: [{ name: 'deep-reply', type: 'anthropic', models: ['deep-reply'], baseUrl: scripted.url }],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('deep-json@example.com');
  key = (await console.createToken('deep')).key;
});

afterAll(async () => {
  tally.write('deep-json', {});
  await harness?.stop();
  await scripted?.close();
});

function headersFor(endpoint: Endpoint): Record<string, string> {
  return endpoint === '/v1/messages'
    ? { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' }
    : { 'content-type': 'application/json', authorization: `Bearer ${key}` };
}

async function send(property: string, endpoint: Endpoint, body: string): Promise<RawResponse> {
  const response = await rawRequest(harness.baseUrl, 'POST', endpoint, headersFor(endpoint), body);
  tally.record(property, response.status);
  return response;
}

/** Where a deep value can sit, per endpoint: the field the error must name, and the body around it. */
const places: Array<{ endpoint: Endpoint; field: string; body: (deep: string, model: string) => string }> = [
  {
    endpoint: '/v1/chat/completions',
    field: 'tools[0].function.parameters',
    body: (deep, model) =>
      `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
  },
  {
    endpoint: '/v1/chat/completions',
    field: 'response_format.json_schema.schema',
    body: (deep, model) =>
      `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${deep}}}}`,
  },
  {
    endpoint: '/v1/chat/completions',
    field: 'x_unknown',
    body: (deep, model) => `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"x_unknown":${deep}}`,
  },
  {
    endpoint: '/v1/messages',
    field: 'metadata.deep',
    body: (deep, model) =>
      `{"model":"${model}","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":"u","deep":${deep}}}`,
  },
  {
    endpoint: '/v1/messages',
    field: 'tools[0].input_schema.properties',
    body: (deep, model) =>
      `{"model":"${model}","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":{"type":"object","properties":{"p":${deep}}}}]}`,
  },
  {
    endpoint: '/v1/messages',
    field: 'x_unknown',
    body: (deep, model) =>
      `{"model":"${model}","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"x_unknown":${deep}}`,
  },
];

/** Each endpoint's own channel kind and the other one (a converted request). */
const modelsOf: Record<Endpoint, string[]> = {
  '/v1/chat/completions': ['gpt-4o-mini', 'claude-sonnet-4-5'],
  '/v1/messages': ['claude-sonnet-4-5', 'gpt-4o-mini'],
};

async function completedEvents(): Promise<Map<string, RequestCompleted>> {
  await harness.runtime.publisher.flush();
  const events = new Map<string, RequestCompleted>();
  for (const event of loggedEvents(harness.dataDirectory)) {
    if (event.type === 'request.completed') events.set(event.body.requestId, event);
  }
  return events;
}

describe('deep JSON from the client', () => {
  it('is refused with 400 naming the field, in the endpoint’s shape, before any channel is chosen', async () => {
    const upstreamCalls = harness.upstream.requests.length;
    const ids: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...places),
        fc.integer({ min: MAX_JSON_DEPTH + 1, max: 20_000 }),
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
        fc.boolean(),
        async (place, depth, kind, converted) => {
          const model = modelsOf[place.endpoint][converted ? 1 : 0]!;
          const response = await send('too deep', place.endpoint, place.body(deeplyNested(depth, kind), model));
          const label = `${place.field} at ${depth} (${kind}, ${model}): ${response.text.slice(0, 300)}`;
          expect(response.status, label).toBe(400);
          const error = response.json.error;
          expect(error.message, label).toContain(`${place.field} is nested deeper than ${MAX_JSON_DEPTH} levels`);
          if (place.endpoint === '/v1/messages') expect(response.json.type).toBe('error');
          else expect(error).toMatchObject({ param: place.field, code: 'json_too_deep' });
          ids.push(String(response.headers['x-request-id']));
        },
      ),
      { numRuns: 60 },
    );
    expect(harness.upstream.requests.length).toBe(upstreamCalls);
    const events = await completedEvents();
    for (const id of ids) {
      expect(events.get(id)?.body).toMatchObject({ status: 400, channelId: null, errorType: 'json_too_deep' });
    }
  });

  it('relays the same fields nested just under the limit', async () => {
    for (const place of places) {
      for (const model of modelsOf[place.endpoint]) {
        // The value's own levels start a few levels down; stay clear of the limit.
        const response = await send('under the limit', place.endpoint, place.body(deeplyNested(80, 'object'), model));
        expect(response.status, `${place.field} ${model}: ${response.text.slice(0, 300)}`).toBe(200);
      }
    }
  });
});

describe('a reply deep enough to overflow the gateway’s own code', () => {
  // A tool call whose input nests 200,000 levels: the converter's JSON.stringify overflows the stack.
  const deepInput = deeplyNested(200_000, 'object');

  it('is a 500 of the gateway, not a 502 blaming the channel, and is not retried', async () => {
    let calls = 0;
    scripted.script = () => {
      calls++;
      return {
        status: 200,
        text: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_01","name":"f","input":${deepInput}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":4}}`,
      };
    };
    const body = '{"model":"deep-reply","messages":[{"role":"user","content":"hi"}]}';
    const response = await send('overflowing reply', '/v1/chat/completions', body);
    expect(response.status, response.text.slice(0, 300)).toBe(500);
    expect(response.json.error).toMatchObject({ type: 'server_error', code: 'internal_error' });
    expect(calls).toBe(1);
    const event = (await completedEvents()).get(String(response.headers['x-request-id']));
    expect(event?.body).toMatchObject({ status: 500, errorType: 'internal_error' });
    expect(event?.body.attempts).toEqual([expect.objectContaining({ error: 'internal' })]);
  });
});
