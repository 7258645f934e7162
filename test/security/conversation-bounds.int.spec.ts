/**
 * A stored conversation, on the embedded store: kept byte for byte (a user's own credential-shaped
 * text is theirs: stored, returned and sent upstream next turn as written, while the channel's key
 * never reaches the store: responses-stored.int.spec.ts), and continued with `previous_response_id`
 * at most `CONVERSATION_LIMIT_BYTES` expanded (a clear 400 naming the limit, before any upstream call).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { type ScriptedRequest, type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

let harness: Harness;
let upstream: ScriptedUpstream;
let key: string;
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
    environment: { CONVERSATION_LIMIT_BYTES: '100000' },
    extraChannels: [{ name: 'scripted', type: 'openai', models: ['scripted-model'], baseUrl: `${upstream.url}/v1` }],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('conversation-bounds@example.com');
  key = (await client.createToken('conversation')).key;
});
afterAll(async () => {
  await harness.stop();
  await upstream.close();
});

async function respond(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.baseUrl}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'scripted-model', ...body }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('a stored conversation', () => {
  it('keeps a user’s own credential-shaped text as written, and sends it upstream next turn', async () => {
    const mine = 'my password=hunter2hunter2, key sk-live-9f8e7d6c5b4a3210zyxw and AKIAABCDEFGHIJKLMNOP';
    const first = await respond({ input: mine });
    expect(first.status).toBe(200);
    const next = await respond({ input: 'and then?', previous_response_id: first.body.id });
    expect(next.status).toBe(200);
    const relayed = JSON.stringify(received.at(-1)!.body);
    expect(relayed).toContain(mine);
    expect(relayed).not.toContain('[redacted]');
  });
});

describe('a continued conversation’s expanded size', () => {
  it('is refused with a 400 naming CONVERSATION_LIMIT_BYTES once its turns outweigh it', async () => {
    const turn = 'x'.repeat(40_000);
    const first = await respond({ input: turn });
    const second = await respond({ input: turn, previous_response_id: first.body.id });
    expect(second.status).toBe(200);
    const relayed = received.length;
    // Two stored turns of 40 KB and a third in the body: over 100,000 bytes.
    const refused = await respond({ input: turn, previous_response_id: second.body.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('conversation_too_large');
    expect(refused.body.error.param).toBe('previous_response_id');
    expect(refused.body.error.message).toContain('CONVERSATION_LIMIT_BYTES');
    expect(received.length).toBe(relayed);
    // A short next turn still fits.
    expect((await respond({ input: 'short', previous_response_id: second.body.id })).status).toBe(200);
  });
});
