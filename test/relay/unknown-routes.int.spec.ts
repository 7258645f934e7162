/**
 * Paths no route serves: a JSON error in the shape a client of the path's prefix parses (OpenAI's
 * under `/v1`, Anthropic's under `/v1/messages`, Google's under `/v1beta`), 404 for an unknown path
 * and 405 with `Allow` for a known path asked with another method; never Express's HTML page. The
 * console's own routes keep answering.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => harness.stop());

async function call(method: string, path: string) {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method !== 'GET' && method !== 'HEAD' && { body: '{}' }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

it('answers an unknown /v1 path with a 404 in the OpenAI error shape', async () => {
  for (const method of ['POST', 'GET', 'DELETE']) {
    const { status, headers, body } = await call(method, '/v1/completions/legacy');
    expect(status).toBe(404);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-/);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_route', param: null });
    expect(body.error.message).toContain(`No route ${method} /v1/completions/legacy`);
  }
  expect((await call('POST', '/v1')).status).toBe(404);
});

it('answers an unknown path under /v1/messages in the Anthropic error shape', async () => {
  const { status, headers, body } = await call('POST', '/v1/messages/batches');
  expect(status).toBe(404);
  expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  expect(body.request_id).toBe(headers.get('x-request-id'));
});

it('answers 405 with Allow for a known path asked with another method', async () => {
  const { status, headers, body } = await call('POST', '/v1/models');
  expect(status).toBe(405);
  expect(headers.get('allow')).toBe('GET');
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
});

it("answers /v1beta paths in Google's error shape", async () => {
  const { status, body } = await call('POST', '/v1beta/models/gemini-2.5-flash:predictLongRunning');
  expect(status).toBe(404);
  expect(body).toEqual({
    error: {
      code: 404,
      message: expect.stringContaining('/v1beta/models/gemini-2.5-flash:predictLongRunning'),
      status: 'NOT_FOUND',
    },
  });
});

it('answers any other unknown path with JSON, and keeps the console routes', async () => {
  const { status, body } = await call('POST', '/somewhere');
  expect(status).toBe(404);
  expect(body).toEqual({ error: { code: 'not_found', message: 'No route POST /somewhere.' } });
  expect((await call('GET', '/healthz')).body).toEqual({ status: 'ok' });
  expect((await call('GET', '/api/nothing-here')).body.error.code).toBe('not_found');
});
