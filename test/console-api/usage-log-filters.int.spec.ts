/**
 * The usage log's filters by endpoint, streaming and error type through the console API on the
 * embedded store, with real relayed requests; a bad value of each is a 400 in the API's one error
 * shape naming the field, and a query parameter the API does not know is ignored, never a 400.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let user: ConsoleClient;
let key: string;

const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

async function relay(path: string, body: Record<string, unknown>): Promise<Response> {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  await response.text();
  return response;
}

const hello = [{ role: 'user', content: 'hi' }];

beforeAll(async () => {
  harness = await startHarness();
  user = new ConsoleClient(harness.baseUrl);
  await user.register('filters@example.com');
  key = (await user.createToken('filters')).key;
  expect((await relay('/v1/chat/completions', { model: 'gpt-4o-mini', messages: hello })).status).toBe(200);
  expect((await relay('/v1/chat/completions', { model: 'gpt-4o-mini', messages: hello, stream: true })).status).toBe(
    200,
  );
  expect((await relay('/v1/messages', { model: 'gpt-4o-mini', max_tokens: 50, messages: hello })).status).toBe(200);
  expect((await relay('/v1/chat/completions', { model: 'no-such-model', messages: hello })).status).toBe(404);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
});
afterAll(async () => harness.stop());

async function logged(filters: string) {
  const answer = await user.call('GET', `/api/usage/logs?${range()}&${filters}`);
  expect(answer.status, filters).toBe(200);
  expect(answer.body.total).toBe(answer.body.items.length);
  return answer.body.items as Array<Record<string, unknown>>;
}

it('filters by endpoint, streaming and error type, alone and together', async () => {
  expect(await logged('')).toHaveLength(4);
  const messages = await logged('endpoint=messages');
  expect(messages.map((item) => [item.endpoint, item.stream])).toEqual([['messages', false]]);
  expect((await logged('endpoint=chat.completions')).every((item) => item.endpoint === 'chat.completions')).toBe(true);
  expect(await logged('endpoint=chat.completions')).toHaveLength(3);
  expect((await logged('streamed=true')).map((item) => item.stream)).toEqual([true]);
  expect(await logged('streamed=false')).toHaveLength(3);
  const refused = await logged('error_type=model_not_found');
  expect(refused.map((item) => [item.model_requested, item.status])).toEqual([['no-such-model', 404]]);
  expect(await logged('endpoint=chat.completions&streamed=false&status=ok')).toHaveLength(1);
  expect(await logged('endpoint=messages&error_type=model_not_found')).toEqual([]);
  // Each answered request says what it wrote to the provider's cache (none, from this upstream).
  expect(messages[0]).toMatchObject({ cached_tokens: 0, cache_write_tokens: 0 });
});

it('refuses a bad value of each filter with a 400 naming the field, and ignores a parameter it does not know', async () => {
  const cases: Array<[string, string, string]> = [
    ['endpoint=chat', 'endpoint', 'must be one of "chat.completions", "messages"'],
    ['streamed=yes', 'streamed', 'must be one of "true", "false"'],
    ['error_type=rate%20limit', 'error_type', 'must be an error type such as rate_limit_error'],
  ];
  for (const [query, field, message] of cases) {
    const answer = await user.call('GET', `/api/usage/logs?${range()}&${query}`);
    expect(answer.status, query).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', field });
    expect(answer.body.error.message).toContain(message);
  }
  expect(await logged('colour=blue')).toHaveLength(4);
});
