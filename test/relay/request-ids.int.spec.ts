/**
 * Request ids: every request gets the gateway's own id, and a caller's X-Request-Id is kept beside it
 * for tracing. A caller that repeats its id (a constant, a retry) must not merge requests: each one
 * is counted, and its tokens charged, once. Keyed by the caller's id, three requests were one row.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

let harness: Harness;
let console: ConsoleClient;
let key: string;

const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

beforeAll(async () => {
  harness = await startHarness();
  console = new ConsoleClient(harness.baseUrl);
  await console.register('request-ids@example.com');
  key = (await console.createToken('request ids')).key;
});
afterAll(async () => harness.stop());

it('counts and charges every request of a caller that sends the same X-Request-Id each time', async () => {
  const openai = new OpenAI({
    baseURL: `${harness.baseUrl}/v1`,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { 'x-request-id': 'trace-42' },
  });
  const hello = [{ role: 'user' as const, content: 'hi' }];
  const replies = [];
  for (let index = 0; index < 3; index++) {
    replies.push(await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: hello }).withResponse());
  }
  const gatewayIds = replies.map((reply) => reply.request_id);
  expect(new Set(gatewayIds).size).toBe(3);
  expect(gatewayIds).not.toContain('trace-42');

  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
  const completed = loggedEvents(harness.dataDirectory).filter((event) => event.type === 'request.completed');
  expect(completed.map((event) => event.type === 'request.completed' && event.body.requestId).sort()).toEqual(
    [...gatewayIds].sort(),
  );
  for (const event of completed)
    expect(event.type === 'request.completed' && event.body.clientRequestId).toBe('trace-42');

  const usage = (loadJsonFixture('openai-text').body as any).usage;
  const overview = (await console.call('GET', `/api/usage/overview?${range()}`)).body;
  expect(overview.totals).toMatchObject({ calls: 3, total_tokens: 3 * usage.total_tokens });
  const token = (await console.call('GET', '/api/tokens')).body.items[0];
  expect(token.used_tokens).toBe(3 * usage.total_tokens);
  const logs = (await console.call('GET', '/api/usage/logs?limit=10')).body;
  expect(logs.items.map((item: any) => item.request_id).sort()).toEqual([...gatewayIds].sort());
});

it('makes its own id when the caller sends none, or one a header cannot safely carry', async () => {
  for (const given of [undefined, 'has spaces and <tags>', 'x'.repeat(129)]) {
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(given !== undefined && { 'x-request-id': given }),
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  }
  await harness.runtime.publisher.flush();
  const last = loggedEvents(harness.dataDirectory)
    .filter((event) => event.type === 'request.completed')
    .slice(-3);
  for (const event of last) expect(event.type === 'request.completed' && event.body.clientRequestId).toBeUndefined();
});

it("answers a GET on a relay endpoint with 405 and Allow: POST, in the endpoint's format, with an id", async () => {
  const chat = await fetch(`${harness.baseUrl}/v1/chat/completions`);
  expect(chat.status).toBe(405);
  expect(chat.headers.get('allow')).toBe('POST');
  expect(chat.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  expect(((await chat.json()) as any).error.message).toContain('Use POST');
  const messages = await fetch(`${harness.baseUrl}/v1/messages`);
  expect(messages.status).toBe(405);
  const body = (await messages.json()) as any;
  expect(body.type).toBe('error');
  expect(body.request_id).toBe(messages.headers.get('x-request-id'));
});
