/**
 * No secret leaves the gateway: traffic of every kind (replies, streams, upstream errors, an
 * unreachable channel, a refused key) and the channel admin calls run with request logging on, and
 * neither the client key's plaintext nor any upstream key appears in stdout, stderr, any API response
 * (bodies and headers), the metrics, or the stored events.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_ANTHROPIC, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

const RING_KEYS = ['ring-secret-alpha-0123456789', 'ring-secret-bravo-0123456789'];
const ADDED_KEYS = ['console-added-secret-0123456789', 'console-added-secret-second-0123'];
const REPLACED_KEY = 'console-replaced-secret-0123456789';

let harness: Harness;
const captured: string[] = [];
const restore: Array<() => void> = [];

function capture(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = original as typeof stream.write;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const spy = vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      captured.push(args.map(String).join(' '));
    });
    restore.push(() => spy.mockRestore());
  }
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  capture();
  harness = await startHarness({
    environment: {
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: 'leak-admin@example.com',
      ADMIN_PASSWORD: 'a long admin password',
      UPSTREAM_RETRY_BACKOFF_MS: '1',
    },
    extraChannels: [
      { name: 'ring', type: 'openai', models: ['ring-model'], apiKeys: RING_KEYS },
      {
        name: 'down',
        type: 'openai',
        models: ['down-model'],
        baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
        apiKeys: ['down-secret-key-0123456789'],
      },
    ],
  });
});
afterAll(async () => {
  await harness.stop();
  for (const undo of restore.reverse()) undo();
});

describe('secrets in logs, responses and events', () => {
  it('never shows the client key or an upstream key', async () => {
    const responses: string[] = [];
    const record = async (response: Response) => {
      responses.push(JSON.stringify([...response.headers]), await response.text());
    };
    const admin = new ConsoleClient(harness.baseUrl);
    const login = await admin.call('POST', '/api/auth/login', {
      email: 'leak-admin@example.com',
      password: 'a long admin password',
    });
    responses.push(JSON.stringify(login.body));
    const created = await admin.createToken('leak');
    const key = created.key;
    const { key: _shownOnce, ...createdWithoutKey } = created;
    responses.push(JSON.stringify(createdWithoutKey));

    const chat = (model: string, stream = false, apiKey = key) =>
      fetch(`${harness.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'Say hello' }] }),
      });
    const messages = (stream = false) =>
      fetch(`${harness.baseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          stream,
          max_tokens: 32,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });

    await record(await chat('gpt-4o-mini'));
    await record(await chat('gpt-4o-mini', true));
    await record(await messages());
    await record(await messages(true));
    await record(await chat('ring-model'));
    await record(await chat('ring-model'));
    for (const fixture of ['error-401', 'error-429', 'error-500', 'error-503']) {
      harness.upstream.next(fixture);
      await record(await chat('gpt-4o-mini'));
    }
    harness.upstream.next('error-401');
    await record(await messages());
    harness.upstream.next({ fixture: 'text-stream', cutAfterChunks: 2 });
    await record(await chat('gpt-4o-mini', true));
    await record(await chat('down-model'));
    await record(await chat('gpt-4o-mini', false, `${key.slice(0, -1)}x`));

    // Channel administration: list, add with several keys, change, replace the key, test, remove.
    responses.push(JSON.stringify((await admin.call('GET', '/api/channels')).body));
    const added = await admin.call('POST', '/api/channels', {
      name: 'added',
      type: 'openai',
      base_url: `${harness.upstream.url}/v1`,
      api_keys: ADDED_KEYS,
      models: ['added-model'],
    });
    expect(added.status).toBe(201);
    responses.push(JSON.stringify(added.body));
    const id = added.body.id;
    responses.push(JSON.stringify((await admin.call('PATCH', `/api/channels/${id}`, { priority: 3 })).body));
    await record(await chat('added-model'));
    responses.push(JSON.stringify((await admin.call('POST', `/api/channels/${id}/test`, {})).body));
    responses.push(JSON.stringify((await admin.call('PATCH', `/api/channels/${id}`, { api_key: REPLACED_KEY })).body));
    harness.upstream.next('error-401');
    responses.push(JSON.stringify((await admin.call('POST', `/api/channels/${id}/test`, {})).body));
    responses.push(JSON.stringify((await admin.call('GET', '/api/channels')).body));
    responses.push(JSON.stringify((await admin.call('GET', '/api/tokens')).body));
    await record(await fetch(`${harness.baseUrl}/metrics`));
    responses.push(JSON.stringify((await admin.call('DELETE', `/api/channels/${id}`)).body));

    await harness.runtime.publisher.flush();
    const events = loggedEvents(harness.dataDirectory).map((event) => JSON.stringify(event));

    const upstreamKeys = [UPSTREAM_KEY_OPENAI, UPSTREAM_KEY_ANTHROPIC, ...RING_KEYS, ...ADDED_KEYS, REPLACED_KEY];
    // The upstream did receive them: the scan is meaningful.
    const sent = JSON.stringify(harness.upstream.requests.map((request) => request.headers));
    for (const upstreamKey of [UPSTREAM_KEY_OPENAI, ...RING_KEYS, ADDED_KEYS[0]!, REPLACED_KEY])
      expect(sent).toContain(upstreamKey);
    expect(captured.some((line) => line.includes('"msg":"request"'))).toBe(true);

    const haystacks = { logs: captured.join('\n'), responses: responses.join('\n'), events: events.join('\n') };
    for (const [where, text] of Object.entries(haystacks)) {
      expect(text.includes(key), `client key in ${where}`).toBe(false);
      for (const secret of upstreamKeys) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    }
  });
});
