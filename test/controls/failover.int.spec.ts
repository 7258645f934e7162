/**
 * Channel routing under failure: three upstreams that fail in different ways (connection refused, a
 * 503, a hang past the channel's first-byte timeout) before a healthy one, through both endpoints,
 * with the retry chain recorded on `request.completed`; then the circuit breaker opening, probing and
 * closing, and several keys of one channel used in turn.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventOfType } from '../../contracts/events/index.ts';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

let harness: Harness;
let failing: FakeUpstream;
let hanging: FakeUpstream;
let flaky: FakeUpstream;
let key: string;
let admin: ConsoleClient;
let closedPort: number;

async function freeClosedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  [failing, hanging, flaky] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  closedPort = await freeClosedPort();
  harness = await startHarness({
    environment: {
      ADMIN_EMAIL: 'ops@example.com',
      ADMIN_PASSWORD: 'a long admin password',
      UPSTREAM_MAX_ATTEMPTS: '4',
      CIRCUIT_FAILURE_THRESHOLD: '2',
      CIRCUIT_OPEN_MS: '400',
      UPSTREAM_RETRY_BACKOFF_MS: '20',
    },
    extraChannels: [
      // Failover chain: one channel per tier so the order is fixed.
      {
        name: 'refused',
        type: 'openai',
        models: ['chain'],
        priority: 40,
        baseUrl: `http://127.0.0.1:${closedPort}/v1`,
      },
      { name: 'unavailable', type: 'openai', models: ['chain'], priority: 30, baseUrl: `${failing.url}/v1` },
      {
        name: 'silent',
        type: 'openai',
        models: ['chain'],
        priority: 20,
        baseUrl: `${hanging.url}/v1`,
        firstByteTimeoutMs: 300,
      },
      { name: 'healthy', type: 'openai', models: ['chain'], priority: 10 },
      // Breaker: a flaky preferred channel and a backup.
      { name: 'flaky', type: 'openai', models: ['breaker'], priority: 2, baseUrl: `${flaky.url}/v1` },
      { name: 'backup', type: 'openai', models: ['breaker'], priority: 1 },
      // Several keys, used in turn.
      {
        name: 'keyring',
        type: 'openai',
        models: ['keyring'],
        apiKeys: ['ring-key-one-000', 'ring-key-two-000', 'ring-key-three-0'],
      },
    ],
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'ops@example.com', password: 'a long admin password' });
  key = (await admin.createToken('failover')).key;
});
afterAll(async () => {
  await harness.stop();
  await Promise.all([failing.close(), hanging.close(), flaky.close()]);
});
beforeEach(() => {
  harness.upstream.reset();
  failing.reset();
  hanging.reset();
  flaky.reset();
  harness.runtime.breakers.reset();
});

async function chat(model: string) {
  const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello' }] }),
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id')!,
    body: (await response.json()) as any,
  };
}

async function messages(model: string) {
  const response = await fetch(`${harness.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] }),
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id')!,
    body: (await response.json()) as any,
  };
}

async function completedEvent(requestId: string): Promise<EventOfType<'request.completed'>['body']> {
  await harness.runtime.publisher.flush();
  const event = loggedEvents(harness.dataDirectory).find(
    (event) => event.type === 'request.completed' && event.body.requestId === requestId,
  );
  return (event as EventOfType<'request.completed'>).body;
}

async function channelsByName(): Promise<Record<string, any>> {
  const { body } = await admin.call('GET', '/api/channels');
  return Object.fromEntries(body.items.map((channel: any) => [channel.name, channel]));
}

function channelId(channels: Record<string, any>, name: string): string {
  return channels[name].id;
}

describe('failover across upstreams failing in different ways', () => {
  it.each([
    ['/v1/chat/completions', chat],
    ['/v1/messages', messages],
  ])('%s: refused, 503 and silent upstreams are passed over; the healthy one answers', async (_path, call) => {
    failing.next('error-503');
    hanging.next({ fixture: 'text', hang: true });
    const started = performance.now();
    const { status, requestId } = await call('chain');
    expect(status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(failing.requests).toHaveLength(1);
    expect(hanging.requests).toHaveLength(1);
    expect(harness.upstream.requests).toHaveLength(1);
    const channels = await channelsByName();
    const event = await completedEvent(requestId);
    expect(event.channelId).toBe(channelId(channels, 'healthy'));
    expect(event.attempts).toMatchObject([
      { channelId: channelId(channels, 'refused'), status: 0, error: 'unreachable', keyIndex: 0 },
      { channelId: channelId(channels, 'unavailable'), status: 503, error: 'server_error' },
      { channelId: channelId(channels, 'silent'), status: 0, error: 'timeout' },
      { channelId: channelId(channels, 'healthy'), status: 200, error: null },
    ]);
  });

  it('answers with the last failure when every attempt fails, and stops at UPSTREAM_MAX_ATTEMPTS', async () => {
    // Four channels but the healthy one is fourth: make it fail too.
    failing.next('error-503');
    hanging.next({ fixture: 'text', hang: true });
    harness.upstream.next('error-500');
    const { status, body, requestId } = await chat('chain');
    expect(status).toBe(502);
    expect(body.error.message).toBeTruthy();
    const event = await completedEvent(requestId);
    expect(event.attempts).toHaveLength(4);
  });

  it('shows the breaker state of each channel to admins', async () => {
    failing.next('error-503');
    hanging.next({ fixture: 'text', hang: true });
    expect((await chat('chain')).status).toBe(200);
    const channels = await channelsByName();
    expect(channels['unavailable'].health).toMatchObject({ state: 'closed', consecutive_failures: 1, opened_at: null });
    expect(channels['healthy'].health).toMatchObject({ state: 'closed', consecutive_failures: 0, opened_at: null });
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, skips the channel, probes once after the open period, closes on success', async () => {
    flaky.next('error-503');
    expect((await chat('breaker')).status).toBe(200); // flaky failed once, backup answered
    flaky.next('error-503');
    expect((await chat('breaker')).status).toBe(200); // second consecutive failure: open
    let channels = await channelsByName();
    expect(channels['flaky'].health.state).toBe('open');
    expect(channels['flaky'].health.consecutive_failures).toBe(2);
    expect(Date.parse(channels['flaky'].health.opened_at)).toBeGreaterThan(Date.now() - 5_000);

    // While open, the flaky channel is not even tried.
    const skipped = await chat('breaker');
    expect(skipped.status).toBe(200);
    expect(flaky.requests).toHaveLength(2);
    expect((await completedEvent(skipped.requestId)).attempts).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await channelsByName())['flaky'].health.state).toBe('half_open');
    // The probe goes to the flaky channel, which has recovered: the breaker closes.
    const probe = await chat('breaker');
    expect(probe.status).toBe(200);
    expect(flaky.requests).toHaveLength(3);
    channels = await channelsByName();
    expect(channels['flaky'].health).toMatchObject({ state: 'closed', consecutive_failures: 0, opened_at: null });
    expect((await completedEvent(probe.requestId)).channelId).toBe(channelId(channels, 'flaky'));
  });

  it('opens again when the half-open probe fails', async () => {
    flaky.next('error-503');
    flaky.next('error-503');
    await chat('breaker');
    await chat('breaker');
    expect((await channelsByName())['flaky'].health.state).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 450));
    flaky.next('error-503');
    expect((await chat('breaker')).status).toBe(200); // probe failed, backup answered
    expect((await channelsByName())['flaky'].health.state).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 450));
    await chat('breaker'); // recovered
    expect((await channelsByName())['flaky'].health.state).toBe('closed');
  });
});

describe('several upstream keys on one channel', () => {
  it('uses them in turn and fails over to the next key on a retryable error', async () => {
    for (let index = 0; index < 3; index++) expect((await chat('keyring')).status).toBe(200);
    const used = harness.upstream.requests.map((request) => request.headers['authorization']);
    expect(used).toEqual(['Bearer ring-key-one-000', 'Bearer ring-key-two-000', 'Bearer ring-key-three-0']);
    harness.upstream.reset();
    harness.upstream.next('error-429');
    const { status, requestId } = await chat('keyring');
    expect(status).toBe(200);
    expect(harness.upstream.requests.map((request) => request.headers['authorization'])).toEqual([
      'Bearer ring-key-one-000',
      'Bearer ring-key-two-000',
    ]);
    expect((await completedEvent(requestId)).attempts).toMatchObject([
      { keyIndex: 0, status: 429, error: 'rate_limited' },
      { keyIndex: 1, status: 200, error: null },
    ]);
    const channels = await channelsByName();
    expect(channels['keyring'].key_count).toBe(3);
    expect(JSON.stringify(channels)).not.toContain('ring-key');
  });
});
