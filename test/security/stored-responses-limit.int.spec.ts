/**
 * An account's stored responses are bounded (STORED_RESPONSES_ACCOUNT_LIMIT_BYTES), on the embedded
 * store: a reply that would take them over the limit is answered and not kept, with an
 * `x-gateway-warnings` entry naming the limit; a request that says `store: true` once they are full
 * is refused with a 400 before any upstream call; another account is not affected; a deletion makes
 * room again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { type ScriptedRequest, type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

let harness: Harness;
let upstream: ScriptedUpstream;
let key: string;
let otherKey: string;
const received: ScriptedRequest[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream(({ body, ...request }) => {
    received.push({ body, ...request });
    return {
      status: 200,
      json: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: body['model'],
        choices: [{ index: 0, message: { role: 'assistant', content: 'noted' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
      },
    };
  });
  harness = await startHarness({
    environment: { STORED_RESPONSES_ACCOUNT_LIMIT_BYTES: '100000' },
    extraChannels: [{ name: 'scripted', type: 'openai', models: ['scripted-model'], baseUrl: `${upstream.url}/v1` }],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('stored-limit@example.com');
  key = (await client.createToken('limited')).key;
  const other = new ConsoleClient(harness.baseUrl);
  await other.register('stored-limit-other@example.com');
  otherKey = (await other.createToken('other')).key;
});
afterAll(async () => {
  await harness.stop();
  await upstream.close();
});

async function call(method: string, path: string, apiKey: string, body?: Record<string, unknown>) {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    ...(body && { body: JSON.stringify({ model: 'scripted-model', ...body }) }),
  });
  return {
    status: response.status,
    warnings: response.headers.get('x-gateway-warnings'),
    body: (await response.json()) as any,
  };
}

const turn = 'x'.repeat(40_000);

describe('the account storage limit', () => {
  it('answers a reply over the limit without keeping it, refuses store: true once full, and frees room on DELETE', async () => {
    const first = await call('POST', '/v1/responses', key, { input: turn });
    const second = await call('POST', '/v1/responses', key, { input: turn });
    expect([first.status, second.status, first.warnings, second.warnings]).toEqual([200, 200, null, null]);
    // Two turns of 40 KB kept: a third does not fit in 100,000 bytes.
    const third = await call('POST', '/v1/responses', key, { input: turn });
    expect(third.status).toBe(200);
    expect(third.body.output_text).toBe('noted');
    expect(third.warnings).toContain('response not stored');
    expect(third.warnings).toContain('STORED_RESPONSES_ACCOUNT_LIMIT_BYTES');
    expect((await call('GET', `/v1/responses/${third.body.id}`, key)).status).toBe(404);

    const relayed = received.length;
    const refused = await call('POST', '/v1/responses', key, { input: turn, store: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'stored_responses_limit_reached', param: 'store' });
    expect(refused.body.error.message).toContain('STORED_RESPONSES_ACCOUNT_LIMIT_BYTES');
    expect(received.length).toBe(relayed);
    // Not stored, not limited; and another account has its own room.
    expect((await call('POST', '/v1/responses', key, { input: turn, store: false })).status).toBe(200);
    expect((await call('POST', '/v1/responses', otherKey, { input: turn, store: true })).warnings).toBeNull();

    expect((await call('DELETE', `/v1/responses/${first.body.id}`, key)).status).toBe(200);
    const again = await call('POST', '/v1/responses', key, { input: turn, store: true });
    expect([again.status, again.warnings]).toEqual([200, null]);
    expect((await call('GET', `/v1/responses/${again.body.id}`, key)).status).toBe(200);
  });
});
