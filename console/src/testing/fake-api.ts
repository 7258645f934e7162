/**
 * A fake of the gateway's `/api` for console unit tests: `fetch` is replaced by a router of
 * `METHOD /path` handlers, and every call is recorded.
 */
import { vi } from 'vitest';

export interface FakeCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** A reply with a status other than 200; handlers return plain bodies otherwise. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
  ) {}
}

export const reply = (status: number, body?: unknown) => new Reply(status, body);

export type FakeHandler = (call: FakeCall) => unknown;

export function fakeApi(routes: Record<string, FakeHandler>) {
  const calls: FakeCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://console.test');
    const method = (init.method ?? 'GET').toUpperCase();
    const path = url.pathname.replace(/^\/api/, '');
    const call: FakeCall = {
      method,
      path,
      query: url.searchParams,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    };
    calls.push(call);
    const handler = routes[`${method} ${path}`];
    if (!handler) return json(404, { error: { code: 'not_found', message: `No fake for ${method} ${path}` } });
    const result = handler(call);
    return result instanceof Reply ? json(result.status, result.body) : json(200, result);
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

function json(status: number, body: unknown): Response {
  return new Response(status === 204 || body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

export const sampleToken = (overrides: Record<string, unknown> = {}) => ({
  id: 't1',
  name: 'laptop',
  key_hint: 'sk-abcd…wxyz',
  status: 'active' as const,
  created_at: '2025-03-01T10:00:00.000Z',
  last_used_at: null,
  expires_at: null,
  quota: null,
  used_tokens: 0,
  models: null,
  ...overrides,
});
