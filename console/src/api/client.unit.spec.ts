// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, reply } from '../testing/fake-api.ts';
import { ApiRequestError, api, buildUrl, setSessionExpiredHandler } from './client.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  setSessionExpiredHandler(null);
});

describe('the console API client', () => {
  it('builds /api URLs, leaving out empty query values', () => {
    expect(buildUrl('/usage/logs', { limit: 50, model: '', cursor: undefined, status: 'ok' })).toBe(
      '/api/usage/logs?limit=50&status=ok',
    );
  });

  it('sends JSON with the session cookie and reads JSON back', async () => {
    const { fetchMock, calls } = fakeApi({ 'POST /tokens': (call) => reply(201, { echo: call.body }) });
    expect(await api.post('/tokens', { name: 'x' })).toEqual({ echo: { name: 'x' } });
    const init = fetchMock.mock.calls[0]![1] as RequestInit;
    expect(init.credentials).toBe('same-origin');
    expect((init.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/tokens' });
  });

  it('turns the /api error shape into an ApiRequestError with code and field', async () => {
    fakeApi({
      'POST /auth/register': () =>
        reply(400, { error: { code: 'invalid_request', message: 'password: too short', field: 'password' } }),
    });
    const error = await api.post('/auth/register', {}).catch((caught) => caught);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', field: 'password' });
  });

  it('reports an expired session (401 not_signed_in) to the handler, but not wrong credentials', async () => {
    const expired = vi.fn();
    setSessionExpiredHandler(expired);
    fakeApi({
      'GET /tokens': () => reply(401, { error: { code: 'not_signed_in', message: 'Sign in first' } }),
      'POST /auth/login': () => reply(401, { error: { code: 'invalid_credentials', message: 'no' } }),
    });
    await api.post('/auth/login', {}).catch(() => undefined);
    expect(expired).not.toHaveBeenCalled();
    await api.get('/tokens').catch(() => undefined);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('answers undefined for 204 and says so plainly when the network fails', async () => {
    fakeApi({ 'DELETE /channels/c1': () => reply(204) });
    expect(await api.delete('/channels/c1')).toBeUndefined();
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('fetch failed')));
    const error = await api.get('/me').catch((caught) => caught);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });
});
