/** The fake's request handling over raw HTTP: default choice, queue, recording, auth and malformed input. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isRecord, loadJsonFixture, loadStreamFixture } from './fixtures.ts';
import { anthropicHeaders, openaiHeaders, post, readEvents, userHello } from './raw-http.ts';
import { type FakeUpstream, startFakeUpstream } from './server.ts';

const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const anthropicTool = { name: 'get_weather', input_schema: { type: 'object' } };
const imageUrl = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
const imageBlock = { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } };
const openaiToolTurn = [userHello, { role: 'tool', tool_call_id: 'call_1', content: '18°C' }];
const anthropicToolResult = {
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' }],
};

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

const postOpenai = (body: unknown) => post(`${upstream.url}/v1/chat/completions`, body, openaiHeaders);
const postAnthropic = (body: unknown) => post(`${upstream.url}/v1/messages`, body, anthropicHeaders);
const idOf = (name: string) => {
  const body = loadJsonFixture(name).body;
  return isRecord(body) ? body.id : undefined;
};

describe('default choice', () => {
  it.each([
    ['openai-text', postOpenai, { messages: [userHello] }],
    ['openai-tool-call', postOpenai, { messages: [userHello], tools: [weatherTool] }],
    ['openai-image', postOpenai, { messages: [{ role: 'user', content: [imageUrl] }] }],
    ['openai-tool-result-reply', postOpenai, { messages: openaiToolTurn, tools: [weatherTool] }],
    ['anthropic-text', postAnthropic, { messages: [userHello] }],
    ['anthropic-tool-call', postAnthropic, { messages: [userHello], tools: [anthropicTool] }],
    ['anthropic-image', postAnthropic, { messages: [{ role: 'user', content: [imageBlock] }] }],
    [
      'anthropic-tool-result-reply',
      postAnthropic,
      { messages: [userHello, anthropicToolResult], tools: [anthropicTool] },
    ],
  ])('answers with %s', async (fixtureName, send, body) => {
    const response = await send({ model: 'any', max_tokens: 64, ...body });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: unknown }).id).toBe(idOf(fixtureName));
  });

  it('streams the -stream variant, naming each Anthropic event after its payload type', async () => {
    const events = await readEvents(
      await postAnthropic({ model: 'any', max_tokens: 64, stream: true, messages: [userHello] }),
    );
    expect(events.map((event) => event.data)).toEqual(loadStreamFixture('anthropic-text-stream').chunks);
    expect(events.map((event) => event.event)).toEqual(
      events.map((event) => (JSON.parse(event.data) as { type: string }).type),
    );
  });
});

describe('queue', () => {
  it('replays queued scenarios in order, then falls back to the default', async () => {
    upstream.next('error-429');
    upstream.next({ fixture: 'tool-call' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await postOpenai({ model: 'any', messages: [userHello] })).status);
    expect(statuses).toEqual([429, 200, 200]);
    expect(upstream.requests.map((request) => request.path)).toEqual(Array(3).fill('/v1/chat/completions'));
  });

  it('serves an error fixture as JSON even to a streaming request, as real providers do', async () => {
    upstream.next('error-529');
    const response = await postAnthropic({ model: 'any', max_tokens: 64, stream: true, messages: [userHello] });
    expect(response.status).toBe(529);
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('rejects an unknown case at next() time', () => {
    expect(() => upstream.next('no-such-case')).toThrow(/no fixture case "no-such-case"/);
  });

  it('applies a status override to a fixture', async () => {
    upstream.next({ fixture: 'text', status: 503 });
    expect((await postOpenai({ model: 'any', messages: [userHello] })).status).toBe(503);
  });
});

describe('requests and auth', () => {
  it('records method, path and query apart, headers and parsed body', async () => {
    const body = { model: 'claude', max_tokens: 8, messages: [userHello] };
    await post(`${upstream.url}/v1/messages?beta=true`, body, anthropicHeaders);
    expect(upstream.requests).toEqual([
      {
        method: 'POST',
        path: '/v1/messages',
        search: '?beta=true',
        headers: expect.objectContaining(anthropicHeaders),
        body,
      },
    ]);
  });

  it.each([
    ['openai without a key', '/v1/chat/completions', {}, 401, 'invalid_api_key'],
    ['openai with a non-Bearer key', '/v1/chat/completions', { authorization: 'test' }, 401, 'invalid_api_key'],
    ['anthropic without a key', '/v1/messages', { 'anthropic-version': '2023-06-01' }, 401, 'authentication_error'],
    ['anthropic without anthropic-version', '/v1/messages', { 'x-api-key': 'test' }, 400, 'invalid_request_error'],
  ])('rejects %s in the provider shape without consuming the queue', async (_label, path, headers, status, kind) => {
    upstream.next('error-500');
    const body = { model: 'any', messages: [userHello] };
    const rejected = await post(`${upstream.url}${path}`, body, headers);
    expect(rejected.status).toBe(status);
    expect(JSON.stringify(await rejected.json())).toContain(kind);
    const goodHeaders = path === '/v1/messages' ? anthropicHeaders : openaiHeaders;
    expect((await post(`${upstream.url}${path}`, body, goodHeaders)).status).toBe(500);
  });

  it('accepts Anthropic keys as Authorization: Bearer too, like the API and SDK 1.x', async () => {
    const headers = { authorization: 'Bearer test', 'anthropic-version': '2023-06-01' };
    expect((await post(`${upstream.url}/v1/messages`, { messages: [userHello] }, headers)).status).toBe(200);
  });

  it('accepts only the configured key when one is set', async () => {
    const strict = await startFakeUpstream({ apiKey: 'sk-upstream' });
    const send = (key: string) =>
      post(`${strict.url}/v1/chat/completions`, { messages: [userHello] }, { authorization: `Bearer ${key}` });
    expect([(await send('sk-other')).status, (await send('sk-upstream')).status]).toEqual([401, 200]);
    await strict.close();
  });

  it.each([
    [
      '/v1/chat/completions',
      openaiHeaders,
      { error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: null } },
    ],
    [
      '/v1/messages',
      anthropicHeaders,
      {
        type: 'error',
        error: expect.objectContaining({ type: 'invalid_request_error' }),
        request_id: expect.any(String),
      },
    ],
  ])('answers a non-JSON body on %s with 400 in the provider shape', async (path, headers, shape) => {
    const response = await post(`${upstream.url}${path}`, '{not json', headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(shape);
    expect(upstream.requests[0]?.body).toBe('{not json');
  });

  it('answers unknown routes with 404 and serves GET /v1/models', async () => {
    expect((await post(`${upstream.url}/v1/completions`, {}, openaiHeaders)).status).toBe(404);
    const models = await fetch(`${upstream.url}/v1/models`, { headers: openaiHeaders });
    expect(await models.json()).toEqual(loadJsonFixture('openai-models').body);
  });
});
