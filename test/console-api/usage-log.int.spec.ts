/**
 * The usage log through the console API on the embedded store: a user finds a request by the
 * X-Request-Id it sent or the id the gateway answered with; a request refused for a revoked, disabled
 * or expired key shows in its owner's log (before, it was recorded as nobody's); an administrator sees
 * whose request it was and the channels by name, a user neither channel ids nor names.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let admin: ConsoleClient;
let user: ConsoleClient;
let key: string;
let keyId: string;

const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

async function chat(apiKey: string, requestId?: string): Promise<Response> {
  return fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      ...(requestId && { 'x-request-id': requestId }),
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function settle(): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
  user = new ConsoleClient(harness.baseUrl);
  await user.register('log-user@example.com');
  ({ key, id: keyId } = await user.createToken('log key'));
});
afterAll(async () => harness.stop());

it("finds a request by the caller's X-Request-Id or the gateway's id, and counts the matches", async () => {
  expect((await chat(key, 'my-trace-7')).status).toBe(200);
  const answered = await chat(key);
  const gatewayId = answered.headers.get('x-request-id')!;
  await settle();

  const byClientId = (await user.call('GET', `/api/usage/logs?${range()}&request_id=my-trace-7`)).body;
  expect(byClientId.total).toBe(1);
  expect(byClientId.items[0]).toMatchObject({ client_request_id: 'my-trace-7', model_requested: 'gpt-4o-mini' });
  const byGatewayId = (await user.call('GET', `/api/usage/logs?${range()}&request_id=${gatewayId}`)).body;
  expect(byGatewayId.items.map((item: any) => item.request_id)).toEqual([gatewayId]);
  expect((await user.call('GET', `/api/usage/logs?${range()}&model=4O-MINI`)).body.total).toBe(2);
});

it('shows an administrator whose request it was and its channels by name, and a user neither', async () => {
  const mine = (await user.call('GET', `/api/usage/logs?${range()}&request_id=my-trace-7`)).body.items[0];
  expect(mine.channel_id).toBeNull();
  expect(mine.attempts).toEqual([{ channel_id: '', status: 200, error: null, latency_ms: expect.any(Number) }]);
  expect(mine.user_email).toBeUndefined();

  const seen = (await admin.call('GET', `/api/usage/logs?${range()}&user_id=all&request_id=my-trace-7`)).body.items[0];
  expect(seen).toMatchObject({
    user_email: 'log-user@example.com',
    channel_name: 'fake-openai',
    attempts: [{ channel_name: 'fake-openai', status: 200, error: null }],
  });
  expect(seen.channel_id).toEqual(seen.attempts[0].channel_id);
  // An administrator's key filter reaches another user's key.
  const byKey = (await admin.call('GET', `/api/usage/logs?${range()}&user_id=all&token_id=${keyId}`)).body;
  expect(byKey.total).toBe(2);
});

it("gives administrators each channel's recent calls, errors and latency, and no one else", async () => {
  const channels = (await admin.call('GET', '/api/channels')).body.items;
  const openai = channels.find((channel: any) => channel.name === 'fake-openai');
  const usage = (await admin.call('GET', '/api/channels/usage?hours=1')).body;
  expect(usage.items).toEqual([{ channel_id: openai.id, calls: 2, errors: 0, average_latency_ms: expect.any(Number) }]);
  expect((await user.call('GET', '/api/channels/usage')).status).toBe(403);
  expect((await admin.call('GET', '/api/channels/usage?hours=999')).status).toBe(400);
});

it('shows a request refused for a disabled, expired or revoked key in its owner’s log', async () => {
  expect((await user.call('PATCH', `/api/tokens/${keyId}`, { enabled: false })).status).toBe(200);
  expect((await chat(key, 'while-disabled')).status).toBe(401);
  const expiring = await user.createToken('expired key', { expires_at: new Date(Date.now() + 1500).toISOString() });
  await new Promise((resolve) => setTimeout(resolve, 1600));
  expect((await chat(expiring.key, 'after-expiry')).status).toBe(401);
  expect((await user.call('DELETE', `/api/tokens/${keyId}`)).status).toBe(200);
  expect((await chat(key, 'after-revoke')).status).toBe(401);
  await settle();

  const refused = (await user.call('GET', `/api/usage/logs?${range()}&status=error`)).body;
  const byTrace = new Map(refused.items.map((item: any) => [item.client_request_id, item]));
  for (const [trace, tokenId, message] of [
    ['while-disabled', keyId, /disabled/],
    ['after-expiry', expiring.id, /expired/],
    ['after-revoke', keyId, /revoked/],
  ] as const) {
    expect(byTrace.get(trace)).toMatchObject({
      token_id: tokenId,
      status: 401,
      error_message: expect.stringMatching(message),
    });
  }
});
