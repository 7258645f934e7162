/**
 * Security of the console API, route by route: every `/api` route is listed here (a test fails when a
 * route file registers one that is not), and for each: anonymous callers get 401, users cannot reach
 * another user's keys or usage (404/403, never data), non-admins get 403 on admin routes, and
 * state-changing calls from a foreign site (or with no Origin/Referer) are refused. Also: passwords and
 * keys at rest, and no key plaintext in any answer or log line. Session cookies and security headers:
 * session-cookies.int.spec.ts; stored responses across accounts: stored-responses-isolation.int.spec.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_ANTHROPIC, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

const ADMIN = { email: 'sec-admin@example.com', password: 'sec-admin-password' };
const PASSWORD_A = 'alice-secret-password-1';

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** who may call it: anyone, any signed-in user, or admins */
  access: 'public' | 'user' | 'admin';
}

/** Every console API route (`:id` stands for a path parameter). */
const ROUTES: Route[] = [
  { method: 'POST', path: '/auth/register', access: 'public' },
  { method: 'POST', path: '/auth/login', access: 'public' },
  { method: 'POST', path: '/auth/logout', access: 'public' },
  { method: 'GET', path: '/auth/methods', access: 'public' },
  { method: 'GET', path: '/auth/sso/start', access: 'public' },
  { method: 'GET', path: '/auth/sso/callback', access: 'public' },
  { method: 'GET', path: '/me', access: 'user' },
  { method: 'POST', path: '/auth/password', access: 'user' },
  { method: 'GET', path: '/tokens', access: 'user' },
  { method: 'POST', path: '/tokens', access: 'user' },
  { method: 'PATCH', path: '/tokens/:id', access: 'user' },
  { method: 'DELETE', path: '/tokens/:id', access: 'user' },
  { method: 'GET', path: '/models', access: 'user' },
  { method: 'GET', path: '/models/prices', access: 'user' },
  { method: 'GET', path: '/usage/overview', access: 'user' },
  { method: 'GET', path: '/usage/logs', access: 'user' },
  { method: 'GET', path: '/usage/logs/:requestId/payload', access: 'user' },
  { method: 'GET', path: '/sessions', access: 'user' },
  { method: 'GET', path: '/sessions/:id', access: 'user' },
  { method: 'GET', path: '/channels', access: 'admin' },
  { method: 'POST', path: '/channels', access: 'admin' },
  { method: 'PATCH', path: '/channels/:id', access: 'admin' },
  { method: 'DELETE', path: '/channels/:id', access: 'admin' },
  { method: 'POST', path: '/channels/:id/test', access: 'admin' },
  { method: 'GET', path: '/channels/usage', access: 'admin' },
  { method: 'GET', path: '/users', access: 'admin' },
  { method: 'PATCH', path: '/users/:id', access: 'admin' },
  { method: 'POST', path: '/users', access: 'admin' },
  { method: 'POST', path: '/users/:id/password-reset', access: 'admin' },
];

let harness: Harness;
let admin: ConsoleClient;
let alice: ConsoleClient;
let bob: ConsoleClient;
let aliceKey = '';
let aliceTokenId = '';
let aliceUserId = '';
let channelId = '';
const logLines: string[] = [];
const answers: string[] = [];
const restore: Array<() => void> = [];

/** Captures everything the process writes (the gateway logs to stdout/stderr and the console). */
function captureLogs(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logLines.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      logLines.push(args.map(String).join(' '));
      original(...args);
    };
    restore.push(() => {
      console[level] = original;
    });
  }
}

/** A client that remembers every answer body, to check no key plaintext leaks in any of them. */
class RecordingClient extends ConsoleClient {
  override async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await super.call(method, path, body, headers);
    answers.push(JSON.stringify(response.body));
    return response;
  }
}

function concrete(route: Route, ids: { token?: string; channel?: string; user?: string } = {}): string {
  const id = route.path.startsWith('/tokens')
    ? ids.token
    : route.path.startsWith('/channels')
      ? ids.channel
      : route.path.startsWith('/users')
        ? ids.user
        : undefined;
  const filled = route.path.replace(':id', id ?? 'none');
  if (route.path === '/usage/overview' || route.path === '/usage/logs') {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    return `/api${filled}?from=${from}&to=${to}`;
  }
  return `/api${filled}`;
}

function bodyFor(route: Route): unknown {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined;
  if (route.path === '/tokens') return { name: 'x' };
  if (route.path === '/tokens/:id') return { name: 'renamed by someone else', enabled: false };
  if (route.path === '/channels')
    return { name: 'evil', type: 'openai', base_url: 'https://example.com/v1', api_key: 'k', models: ['m'] };
  if (route.path === '/channels/:id') return { enabled: false };
  if (route.path === '/users/:id') return { role: 'admin' };
  if (route.path === '/users') return { email: 'made-by-intruder@example.com' };
  if (route.path === '/auth/password') return { current_password: PASSWORD_A, new_password: 'hijacked-password' };
  return {};
}

beforeAll(async () => {
  captureLogs();
  harness = await startHarness({ environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  admin = new RecordingClient(harness.baseUrl);
  expect((await admin.call('POST', '/api/auth/login', ADMIN)).status).toBe(200);
  alice = new RecordingClient(harness.baseUrl);
  aliceUserId = (await alice.register('alice@example.com', PASSWORD_A)).id;
  const created = await alice.createToken('alice key');
  aliceKey = created.key;
  aliceTokenId = created.id;
  bob = new RecordingClient(harness.baseUrl);
  await bob.register('bob@example.com', 'bob-secret-password-1');
  await bob.createToken('bob key');
  channelId = (await admin.call('GET', '/api/channels')).body.items[0].id;
  // Alice has traffic: usage that Bob must not see.
  const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: aliceKey, maxRetries: 0 });
  await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
});

afterAll(async () => {
  for (const undo of restore) undo();
  await harness?.stop();
});

describe('the route table', () => {
  it('lists every route the console API registers', () => {
    const directory = path.resolve('gateway/console-api');
    const registered = readdirSync(directory)
      .filter((file) => file.endsWith('-routes.ts'))
      .flatMap((file) =>
        [
          ...readFileSync(path.join(directory, file), 'utf8').matchAll(
            /router\.(get|post|patch|put|delete)\('([^']+)'/g,
          ),
        ].map((match) => `${match[1]!.toUpperCase()} ${match[2]}`),
      );
    expect(registered.length).toBeGreaterThan(10);
    expect(registered.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });
});

describe('anonymous callers', () => {
  it.each(ROUTES.filter((route) => route.access !== 'public'))('get 401 on $method $path', async (route) => {
    const anonymous = new ConsoleClient(harness.baseUrl);
    const response = await anonymous.call(
      route.method,
      concrete(route, { token: aliceTokenId, channel: channelId, user: aliceUserId }),
      bodyFor(route),
    );
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('not_signed_in');
  });
});

describe("one user and another user's keys", () => {
  it("does not list Alice's key to Bob", async () => {
    const list = await bob.call('GET', '/api/tokens');
    expect(list.status).toBe(200);
    expect(list.body.items.map((token: { id: string }) => token.id)).not.toContain(aliceTokenId);
    expect(JSON.stringify(list.body)).not.toContain('alice');
  });

  it("refuses Bob changing or revoking Alice's key (404), and leaves it as it was", async () => {
    const rename = await bob.call('PATCH', `/api/tokens/${aliceTokenId}`, { name: 'mine now', enabled: false });
    expect(rename.status).toBe(404);
    expect(rename.body).toEqual({ error: expect.objectContaining({ code: expect.any(String) }) });
    const revoke = await bob.call('DELETE', `/api/tokens/${aliceTokenId}`);
    expect(revoke.status).toBe(404);
    const own = (await alice.call('GET', '/api/tokens')).body.items.find(
      (token: { id: string }) => token.id === aliceTokenId,
    );
    expect(own).toMatchObject({ name: 'alice key', status: 'active' });
  });

  it("shows Bob none of Alice's usage, even when he names her key or her id", async () => {
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const aliceOverview = await alice.call('GET', `/api/usage/overview?${range}`);
    expect(aliceOverview.body.totals.calls).toBe(1);

    const byKey = await bob.call('GET', `/api/usage/overview?${range}&token_id=${aliceTokenId}`);
    expect(byKey.status).toBe(200);
    expect(byKey.body.totals.calls).toBe(0);
    expect(JSON.stringify(byKey.body)).not.toContain(aliceTokenId);
    const logsByKey = await bob.call('GET', `/api/usage/logs?token_id=${aliceTokenId}`);
    expect(logsByKey.status).toBe(200);
    expect(logsByKey.body.items).toEqual([]);
    const ownLogs = await bob.call('GET', '/api/usage/logs');
    expect(ownLogs.body.items).toEqual([]);
    // Nor which models her key may call.
    expect((await bob.call('GET', `/api/models/prices?token_id=${aliceTokenId}`)).status).toBe(404);

    for (const userId of [aliceUserId, 'all']) {
      const overview = await bob.call('GET', `/api/usage/overview?${range}&user_id=${userId}`);
      expect(overview.status).toBe(403);
      expect(overview.body.error.code).toBe('admin_only');
      const logs = await bob.call('GET', `/api/usage/logs?user_id=${userId}`);
      expect(logs.status).toBe(403);
    }
  });

  it("lets an admin see Alice's usage (the scope works both ways)", async () => {
    const logs = await admin.call('GET', `/api/usage/logs?user_id=${aliceUserId}`);
    expect(logs.status).toBe(200);
    expect(logs.body.items).toHaveLength(1);
  });

  it('shows Bob only himself at /api/me', async () => {
    const me = await bob.call('GET', '/api/me');
    expect(me.body.email).toBe('bob@example.com');
  });
});

describe('non-admins on admin routes', () => {
  it.each(ROUTES.filter((route) => route.access === 'admin'))('get 403 on $method $path', async (route) => {
    const response = await bob.call(
      route.method,
      concrete(route, { channel: channelId, user: aliceUserId }),
      bodyFor(route),
    );
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('admin_only');
    expect(JSON.stringify(response.body)).not.toContain(UPSTREAM_KEY_OPENAI.slice(-8));
  });

  it('left channels and roles as they were', async () => {
    const channels = (await admin.call('GET', '/api/channels')).body.items;
    expect(channels.every((channel: { enabled: boolean }) => channel.enabled)).toBe(true);
    expect(channels.map((channel: { name: string }) => channel.name)).not.toContain('evil');
    const users = (await admin.call('GET', '/api/users')).body.items;
    expect(users.find((user: { id: string }) => user.id === aliceUserId).role).toBe('user');
  });
});

describe('cross-site request forgery', () => {
  const stateChanging = ROUTES.filter((route) => route.method !== 'GET');

  it.each(stateChanging)(
    'refuses $method $path from a foreign Origin, a foreign Referer, or neither',
    async (route) => {
      const caller = route.access === 'admin' ? admin : alice;
      const url = concrete(route, { token: aliceTokenId, channel: channelId, user: aliceUserId });
      const attempts: Array<Record<string, string>> = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { origin: '', referer: 'https://evil.example/page' },
        { origin: '' },
      ];
      for (const headers of attempts) {
        const response = await caller.call(route.method, url, bodyFor(route), headers);
        expect(response.status, JSON.stringify(headers)).toBe(403);
        expect(response.body.error.code).toBe('cross_site_request');
      }
    },
  );

  it('left everything as it was', async () => {
    const own = (await alice.call('GET', '/api/tokens')).body.items.find(
      (token: { id: string }) => token.id === aliceTokenId,
    );
    expect(own).toMatchObject({ name: 'alice key', status: 'active' });
    const signIn = await new ConsoleClient(harness.baseUrl).call('POST', '/api/auth/login', {
      email: 'alice@example.com',
      password: PASSWORD_A,
    });
    expect(signIn.status).toBe(200);
  });
});

describe('secrets at rest, in answers and in logs', () => {
  function allStoredText(): string {
    const database = new Database(path.join(harness.dataDirectory, 'gateway.db'), { readonly: true });
    try {
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as Array<{ name: string }>;
      return tables.map(({ name }) => JSON.stringify(database.prepare(`SELECT * FROM "${name}"`).all())).join('\n');
    } finally {
      database.close();
    }
  }

  /** The stored payload is the event body (or the whole event, body inside). */
  function bodyOf(payload: string): Record<string, unknown> {
    const parsed = JSON.parse(payload);
    return parsed.body ?? parsed;
  }

  it('stores passwords as scrypt hashes, never in plaintext', () => {
    const database = new Database(path.join(harness.dataDirectory, 'gateway.db'), { readonly: true });
    try {
      const rows = database.prepare("SELECT type, payload FROM events WHERE type LIKE 'user.%'").all() as Array<{
        type: string;
        payload: string;
      }>;
      const hashes = rows
        .map((row) => ({ type: row.type, hash: bodyOf(row.payload).passwordHash as string | undefined }))
        .filter((row) => row.type === 'user.registered' || row.hash !== undefined);
      // The admin, Alice and Bob.
      expect(hashes.length).toBeGreaterThanOrEqual(3);
      for (const { hash } of hashes) expect(hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/);
    } finally {
      database.close();
    }
    const stored = allStoredText();
    for (const password of [PASSWORD_A, ADMIN.password, 'bob-secret-password-1'])
      expect(stored).not.toContain(password);
  });

  it('stores API keys only as keyed hashes and upstream keys only encrypted', () => {
    const stored = allStoredText();
    expect(stored).not.toContain(aliceKey);
    expect(stored).not.toContain(aliceKey.slice(3, 30));
    expect(stored).not.toContain(UPSTREAM_KEY_OPENAI);
    expect(stored).not.toContain(UPSTREAM_KEY_ANTHROPIC);
  });

  it('never answers with an upstream key, and with a client key only in the one create answer', () => {
    const all = answers.join('\n');
    expect(all).not.toContain(UPSTREAM_KEY_OPENAI);
    expect(all).not.toContain(UPSTREAM_KEY_ANTHROPIC);
    expect(answers.filter((answer) => answer.includes(aliceKey))).toHaveLength(1);
  });

  it('never logs a client key, an upstream key or a password', async () => {
    // A refused key and a failing upstream are the paths most likely to log what they were given.
    const wrong = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: `${aliceKey}x`, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();
    harness.upstream.next('error-500');
    const openai = new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: aliceKey, maxRetries: 0 });
    await openai.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch(() => undefined);
    await harness.runtime.publisher.flush();
    const logged = logLines.join('\n');
    for (const secret of [aliceKey, UPSTREAM_KEY_OPENAI, UPSTREAM_KEY_ANTHROPIC, PASSWORD_A, ADMIN.password])
      expect(logged).not.toContain(secret);
  });
});
