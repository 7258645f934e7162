/**
 * Property-based fuzzing of the console API: hostile bodies (wrong types, any JSON, not JSON, invalid
 * UTF-8, wrong content types, over the 1 MB limit), hostile query strings and path ids, and forged
 * cookies. Every answer is a 4xx `{error:{code,message}}`, never a 5xx; the process keeps serving.
 * Outcome counts go to test/artifacts/fuzz-report/console.json.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { heapMb, type RawResponse, rawRequest, Tally } from './fuzz-support.ts';

const RUNS = 150;
const ADMIN = { email: 'fuzz-admin@example.com', password: 'fuzz-admin-password' };

let harness: Harness;
let userCookie = '';
let adminCookie = '';
let tokenId = '';
let channelId = '';
const tally = new Tally();
let heapBefore = 0;

function cookieOf(response: RawResponse): string {
  const header = response.headers['set-cookie'];
  return (Array.isArray(header) ? header[0]! : String(header)).split(';')[0]!;
}

beforeAll(async () => {
  harness = await startHarness({
    environment: {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // Thousands of sign-ins from one address: the fuzz is not about the rate limit (tested on its own).
      AUTH_RATE_LIMIT_ATTEMPTS: '100000',
    },
  });
  const user = new ConsoleClient(harness.baseUrl);
  await user.register('fuzz-console@example.com');
  tokenId = (await user.createToken('fuzz')).id;
  const login = (email: string, password: string) =>
    rawRequest(
      harness.baseUrl,
      'POST',
      '/api/auth/login',
      { origin: harness.baseUrl, 'content-type': 'application/json' },
      JSON.stringify({ email, password }),
    );
  userCookie = cookieOf(await login('fuzz-console@example.com', 'correct horse battery'));
  adminCookie = cookieOf(await login(ADMIN.email, ADMIN.password));
  const channels = await rawRequest(harness.baseUrl, 'GET', '/api/channels', { cookie: adminCookie });
  channelId = channels.json.items[0].id;
  heapBefore = heapMb();
});

afterAll(async () => {
  tally.write('console', { heapMbBefore: heapBefore, heapMbAfter: heapMb(), gcExposed: 'gc' in globalThis });
  await harness?.stop();
});

function expectConsoleError(response: RawResponse, context: string): void {
  expect(response.status, `${context} → ${response.status} ${response.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${context} → ${response.text.slice(0, 300)}`).toBeLessThan(500);
  expect(response.json, response.text.slice(0, 300)).toBeTypeOf('object');
  expect(Object.keys(response.json)).toEqual(['error']);
  expect(response.json.error.code).toBeTypeOf('string');
  expect(response.json.error.message).toBeTypeOf('string');
}

interface Route {
  method: string;
  path: () => string;
  as: 'anonymous' | 'user' | 'admin';
  /** every field optional: a body without any of its fields is a valid call */
  optional?: boolean;
}

const bodyRoutes: Route[] = [
  { method: 'POST', path: () => '/api/auth/register', as: 'anonymous' },
  { method: 'POST', path: () => '/api/auth/login', as: 'anonymous' },
  { method: 'POST', path: () => '/api/auth/password', as: 'user' },
  { method: 'POST', path: () => '/api/tokens', as: 'user' },
  { method: 'PATCH', path: () => `/api/tokens/${tokenId}`, as: 'user', optional: true },
  { method: 'POST', path: () => '/api/channels', as: 'admin' },
  { method: 'PATCH', path: () => `/api/channels/${channelId}`, as: 'admin', optional: true },
  { method: 'POST', path: () => `/api/channels/${channelId}/test`, as: 'admin', optional: true },
  { method: 'PATCH', path: () => '/api/users/nobody', as: 'admin' },
];

function headersFor(route: Route, extra: Record<string, string> = {}): Record<string, string> {
  const cookie = route.as === 'user' ? userCookie : route.as === 'admin' ? adminCookie : '';
  return { origin: harness.baseUrl, 'content-type': 'application/json', ...(cookie && { cookie }), ...extra };
}

async function send(property: string, route: Route, body: Buffer | string, headers = headersFor(route)) {
  const response = await rawRequest(harness.baseUrl, route.method, route.path(), headers, body);
  tally.record(property, response.status);
  return response;
}

const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
);

/** A body whose fields of the route's schema are all of the wrong type (at least one field present). */
const wrongTypes = fc
  .record(
    {
      email: notAString,
      password: notAString,
      name: notAString,
      current_password: notAString,
      new_password: notAString,
      expires_at: fc.oneof(fc.integer(), fc.string({ minLength: 1 }), fc.boolean()),
      quota: fc.oneof(
        fc.string(),
        fc.integer({ max: -1 }),
        fc.double({ noInteger: true, min: 0.1, max: 1e9, noNaN: true }),
      ),
      models: fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer(), { minLength: 1, maxLength: 3 })),
      enabled: fc.oneof(fc.string(), fc.integer()),
      role: fc.string().filter((role) => role !== 'user' && role !== 'admin'),
      disabled: fc.oneof(fc.string(), fc.integer()),
      type: fc.string().filter((type) => type !== 'openai' && type !== 'anthropic'),
      base_url: fc.oneof(
        fc.integer(),
        fc.string().filter((url) => !/^https?:\/\//.test(url)),
      ),
      priority: fc.oneof(fc.string(), fc.double({ noInteger: true, min: 0.1, max: 10, noNaN: true })),
      weight: fc.oneof(fc.string(), fc.integer({ max: -1 })),
      model: fc.oneof(fc.integer(), fc.constant('')),
    },
    { requiredKeys: [] },
  )
  .filter((body) => Object.keys(body).length > 0);

describe.each(
  bodyRoutes.map(
    (route) => [`${route.method} ${route.path().replace(/[0-9a-f-]{36}|ch_[\w-]+/, ':id')}`, route] as const,
  ),
)('fuzzing %s', (_name, route) => {
  it('refuses fields of the wrong type (4xx)', async () => {
    await fc.assert(
      fc.asyncProperty(wrongTypes, async (body) => {
        const response = await send('wrong types', route, JSON.stringify(body));
        if (response.status < 400) {
          // Unknown fields are dropped: a body holding none of an all-optional route's fields is a valid call.
          expect(route.optional, `${route.path()} accepted ${JSON.stringify(body)}`).toBe(true);
        } else expectConsoleError(response, `${route.path()} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses any JSON that is not an object, and text that is not JSON (4xx)', async () => {
    const notJson = fc.string({ minLength: 1, maxLength: 200 }).filter((text) => {
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    const notObject = fc
      .jsonValue({ maxDepth: 3 })
      .filter((value) => typeof value !== 'object' || value === null || Array.isArray(value))
      .map((value) => JSON.stringify(value));
    await fc.assert(
      fc.asyncProperty(fc.oneof(notJson, notObject), async (text) => {
        const response = await send('not an object', route, text);
        expectConsoleError(response, `${route.path()} ${text.slice(0, 100)}`);
      }),
      { numRuns: 30 },
    );
  });

  it('never answers 5xx to invalid UTF-8 or a wrong content type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xc3]),
        fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json'),
        async (bytes, contentType) => {
          const body = Buffer.concat([Buffer.from('{"email":"a'), Buffer.from(bytes), Buffer.from('@x.io","name":1}')]);
          const response = await send(
            'invalid UTF-8 / content type',
            route,
            body,
            headersFor(route, { 'content-type': contentType }),
          );
          // Not JSON means no body: an all-optional route may then answer 2xx; never a 5xx.
          if (route.optional && response.status < 400) return;
          expectConsoleError(response, `${route.path()} ${contentType}`);
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('fuzzing across the console API', () => {
  it('refuses bodies over the 1 MB limit with 413', async () => {
    for (const route of bodyRoutes.slice(0, 4)) {
      const body = JSON.stringify({ email: 'a@b.io', password: 'x'.repeat(1_100_000) });
      const response = await send('over the body limit', route, body);
      expect(response.status).toBe(413);
      expectConsoleError(response, route.path());
    }
  });

  it('refuses hostile query strings on the usage routes (4xx)', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.integer().map(String),
      fc.constant('2025-01-01T00:00:00Z'),
    );
    const query = fc.dictionary(
      fc.constantFrom('from', 'to', 'granularity', 'model', 'token_id', 'user_id', 'cursor', 'limit', 'status', 'x'),
      value,
      { maxKeys: 6 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/api/usage/overview', '/api/usage/logs'), query, async (path, params) => {
        const search = new URLSearchParams(params).toString();
        const response = await rawRequest(harness.baseUrl, 'GET', `${path}?${search}`, { cookie: userCookie });
        tally.record('usage query strings', response.status);
        expect(response.status, `${path}?${search} → ${response.text.slice(0, 300)}`).toBeLessThan(500);
        if (response.status >= 400) expectConsoleError(response, `${path}?${search}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers 404 or 4xx to hostile path ids, never 5xx', async () => {
    const id = fc.oneof(
      fc.string({ minLength: 1, maxLength: 300 }),
      fc.constantFrom('..', '%2e%2e', '%00', '\u0000', 'null', 'undefined', '__proto__', 'constructor'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          ['PATCH', '/api/tokens/', userCookie, '{"name":"x"}'],
          ['DELETE', '/api/tokens/', userCookie, ''],
          ['PATCH', '/api/channels/', adminCookie, '{"priority":1}'],
          ['DELETE', '/api/channels/', adminCookie, ''],
          ['POST', '/api/channels/', adminCookie, '{}'],
          ['PATCH', '/api/users/', adminCookie, '{"disabled":true}'],
        ),
        id,
        async ([method, prefix, cookie, body], raw) => {
          const suffix = method === 'POST' ? '/test' : '';
          const path = `${prefix}${encodeURIComponent(raw)}${suffix}`;
          const response = await rawRequest(
            harness.baseUrl,
            method,
            path,
            { origin: harness.baseUrl, 'content-type': 'application/json', cookie },
            body || undefined,
          );
          tally.record('hostile path ids', response.status);
          expectConsoleError(response, `${method} ${path}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('treats forged and malformed session cookies as signed out (401), never 5xx', async () => {
    const piece = fc.stringMatching(/^[\w%.=-]{0,40}$/);
    const cookie = fc.oneof(
      fc.tuple(piece, piece, piece, piece).map((parts) => `gateway_session=${parts.join('.')}`),
      piece.map((value) => `gateway_session=${value}`),
      fc.constantFrom(
        'gateway_session=%',
        'gateway_session=%E0%A4%A',
        'gateway_session=%ZZ',
        'gateway_session',
        '=',
        ';;;',
        'gateway_session=a=b=c',
      ),
      fc.stringMatching(/^[\x21-\x7e ]{0,200}$/),
    );
    await fc.assert(
      fc.asyncProperty(cookie, fc.constantFrom('/api/me', '/api/tokens', '/api/usage/logs'), async (value, path) => {
        const response = await rawRequest(harness.baseUrl, 'GET', path, { cookie: value });
        tally.record('forged cookies', response.status);
        expect(response.status, `${value} → ${response.text.slice(0, 200)}`).toBe(401);
        expectConsoleError(response, value);
      }),
      { numRuns: RUNS },
    );
  });

  it('still serves afterwards, with a bounded heap', async () => {
    const me = await rawRequest(harness.baseUrl, 'GET', '/api/me', { cookie: userCookie });
    expect(me.status).toBe(200);
    expect(heapMb() - heapBefore).toBeLessThan(150);
  });
});
