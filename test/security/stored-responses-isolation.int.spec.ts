/**
 * One account and another account's stored responses (`/v1/responses/:id`, reached with an API key):
 * without a key 401; another account's id answers exactly as an unknown one, saying nothing of it; the
 * owner still gets it.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

/**
 * The relay routes that hold one account's data, reached with an API key rather than a session
 * (`:id` is a stored response's id): another account's id answers exactly as an unknown one.
 */
const KEY_ROUTES: Array<{ method: 'GET' | 'DELETE'; path: string }> = [
  { method: 'GET', path: '/v1/responses/:id' },
  { method: 'DELETE', path: '/v1/responses/:id' },
];

let harness: Harness;
let aliceKey = '';
let bob: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness();
  const alice = new ConsoleClient(harness.baseUrl);
  await alice.register('alice@example.com', 'alice-secret-password-1');
  aliceKey = (await alice.createToken('alice key')).key;
  bob = new ConsoleClient(harness.baseUrl);
  await bob.register('bob@example.com', 'bob-secret-password-1');
});

afterAll(async () => {
  await harness?.stop();
});

describe("one account and another account's stored responses (API keys)", () => {
  let responseId = '';
  let bobKey = '';
  const call = async (method: string, route: string, id: string, key?: string) => {
    const response = await fetch(`${harness.baseUrl}${route.replace(':id', id)}`, {
      method,
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    return { status: response.status, body: (await response.json()) as { error: Record<string, unknown> } };
  };

  beforeAll(async () => {
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: aliceKey, maxRetries: 0 });
    responseId = (await openai.responses.create({ model: 'gpt-4o-mini', input: 'Alice only' })).id;
    bobKey = (await bob.createToken('bob responses key')).key;
  });

  it.each(KEY_ROUTES)('$method $path: 401 without a key', async (route) => {
    expect((await call(route.method, route.path, responseId)).status).toBe(401);
  });

  it.each(KEY_ROUTES)("$method $path: Bob gets for Alice's id the 404 of an unknown id", async (route) => {
    const foreign = await call(route.method, route.path, responseId, bobKey);
    const unknown = await call(route.method, route.path, 'resp_unknown', bobKey);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    const shape = ({ error }: { error: Record<string, unknown> }) => ({ ...error, message: undefined });
    expect(shape(foreign.body)).toEqual(shape(unknown.body));
    expect(foreign.body.error['message']).toBe(
      String(unknown.body.error['message']).replace('resp_unknown', responseId),
    );
    expect(JSON.stringify(foreign.body)).not.toContain('Alice only');
  });

  it('leaves Alice her response', async () => {
    const own = await call('GET', '/v1/responses/:id', responseId, aliceKey);
    expect(own.status).toBe(200);
    expect(JSON.stringify(own.body)).toContain(responseId);
  });
});
