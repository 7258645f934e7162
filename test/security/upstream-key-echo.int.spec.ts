/**
 * An upstream that echoes the request's credentials in its errors (some proxies and self-hosted
 * servers do) must not hand the channel's keys to the client or to the books. For every error status,
 * streamed and not, on both endpoints and both channel kinds (same format and converted), and for an
 * error event inside a 200 stream: no key of the channel, whole or a fragment, appears in the client's
 * answer, the stored events, the `requests` projection or the logs.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type ScriptedRequest, type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

// Not shaped like a provider key: only the channel's own secrets can find these.
const OPENAI_KEYS = ['echo-openai-first-Q7mZ2vX9pL4s', 'echo-openai-second-R8nA3wY0qM5t'];
const ANTHROPIC_KEYS = ['echo-anthropic-first-S9oB4xZ1rN6u', 'echo-anthropic-second-T0pC5yA2sO7v'];
const SECRETS = [...OPENAI_KEYS, ...ANTHROPIC_KEYS];
/** Fragments of 16 characters: an echo cut short must not leak them either. */
const FRAGMENTS = SECRETS.map((secret) => secret.slice(-16));
const STATUSES = [400, 404, 429, 500, 503];

let harness: Harness;
let upstream: ScriptedUpstream;
let key: string;
let mode: { status: number } | 'stream-error' = { status: 400 };
const captured: string[] = [];
/** The credential headers the upstream received: proof that there was something to leak. */
const received: string[] = [];
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
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    const spy = vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      captured.push(args.map(String).join(' '));
    });
    restore.push(() => spy.mockRestore());
  }
}

/** What a careless upstream writes: every credential header as it came, the key alone, and cut short. */
function echoOf(request: ScriptedRequest): string {
  const authorization = String(request.headers.authorization ?? '');
  const apiKey = String(request.headers['x-api-key'] ?? '');
  const bare = apiKey || authorization.replace(/^Bearer /, '');
  return `Invalid request (headers: authorization=${authorization}; x-api-key=${apiKey}); key ${bare}, starting ${bare.slice(0, 16)}, ending ${bare.slice(-16)}`;
}

function script(request: ScriptedRequest) {
  received.push(String(request.headers.authorization ?? request.headers['x-api-key']));
  const anthropic = request.path === '/v1/messages';
  const message = echoOf(request);
  if (mode === 'stream-error') {
    return {
      status: 200 as const,
      frames: anthropic
        ? [
            `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-echo', content: [], usage: { input_tokens: 5, output_tokens: 1 } } })}`,
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}`,
          ]
        : [
            `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-echo', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] })}`,
            `data: ${JSON.stringify({ error: { message, type: 'server_error' } })}`,
          ],
    };
  }
  return {
    status: mode.status,
    json: anthropic
      ? { type: 'error', error: { type: 'invalid_request_error', message } }
      : { error: { message, type: 'invalid_request_error', code: null } },
  };
}

beforeAll(async () => {
  capture();
  upstream = await startScriptedUpstream(script);
  harness = await startHarness({
    environment: { LOG_LEVEL: 'info', UPSTREAM_RETRY_BACKOFF_MS: '1' },
    extraChannels: [
      { name: 'echo-openai', type: 'openai', models: ['echo-oa'], baseUrl: `${upstream.url}/v1`, apiKeys: OPENAI_KEYS },
      {
        name: 'echo-anthropic',
        type: 'anthropic',
        models: ['echo-an'],
        baseUrl: upstream.url,
        apiKeys: ANTHROPIC_KEYS,
      },
    ],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('echo@example.com');
  key = (await console.createToken('echo')).key;
});

afterAll(async () => {
  await harness?.stop();
  await upstream?.close();
  for (const undo of restore.reverse()) undo();
});

async function send(endpoint: 'chat' | 'messages', model: string, stream: boolean): Promise<string> {
  const chat = endpoint === 'chat';
  const response = await fetch(`${harness.baseUrl}/v1/${chat ? 'chat/completions' : 'messages'}`, {
    method: 'POST',
    headers: chat
      ? { 'content-type': 'application/json', authorization: `Bearer ${key}` }
      : { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, stream, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return `${response.status} ${await response.text()}`;
}

function leaksIn(text: string): string[] {
  return [...SECRETS, ...FRAGMENTS].filter((secret) => text.toLowerCase().includes(secret.toLowerCase()));
}

describe('an upstream that echoes its credentials', () => {
  const cases = (['chat', 'messages'] as const).flatMap((endpoint) =>
    ['echo-oa', 'echo-an'].flatMap((model) => [false, true].map((stream) => ({ endpoint, model, stream }))),
  );

  it.each(STATUSES)(
    'HTTP %i: no key in the client’s answer, streamed or not, either endpoint and format',
    async (status) => {
      mode = { status };
      for (const { endpoint, model, stream } of cases) {
        const answer = await send(endpoint, model, stream);
        expect(answer.startsWith('200'), answer).toBe(false);
        expect(leaksIn(answer), `${endpoint} ${model} stream=${stream}: ${answer}`).toEqual([]);
        // The upstream's message is still shown, with the keys taken out of it.
        expect(answer).toContain('[redacted]');
      }
    },
  );

  it('an error event inside a 200 stream: no key in the frames the client gets', async () => {
    mode = 'stream-error';
    for (const { endpoint, model } of cases.filter((each) => each.stream)) {
      const answer = await send(endpoint, model, true);
      expect(answer.startsWith('200 '), answer).toBe(true);
      expect(answer).toContain('[redacted]');
      expect(leaksIn(answer), `${endpoint} ${model}: ${answer}`).toEqual([]);
    }
  });

  it('no key in the stored events, the requests projection or the logs', async () => {
    await harness.runtime.publisher.flush();
    await harness.runtime.stores.sync.caughtUp();
    const events = loggedEvents(harness.dataDirectory).filter((event) => event.type === 'request.completed');
    // Every request above was recorded with the upstream's (scrubbed) words.
    const recorded = events.map((event) => JSON.stringify(event));
    expect(recorded.filter((text) => text.includes('[redacted]')).length).toBeGreaterThanOrEqual(
      3 * cases.length + cases.length / 2,
    );
    const database = new Database(path.join(harness.dataDirectory, 'gateway.db'), { readonly: true });
    const rows = database.prepare('SELECT error_message FROM requests WHERE error_message IS NOT NULL').all();
    database.close();
    expect(rows.length).toBeGreaterThanOrEqual(STATUSES.length * cases.length + cases.length / 2);
    for (const secret of SECRETS) expect(received.join('\n')).toContain(secret);
    expect(captured.some((line) => line.includes('"msg":"request"'))).toBe(true);
    for (const [where, text] of Object.entries({
      events: recorded.join('\n'),
      requests: JSON.stringify(rows),
      logs: captured.join('\n'),
    })) {
      expect(leaksIn(text), where).toEqual([]);
    }
  });
});
