/**
 * Payload capture on the embedded store: off by default (nothing of a body anywhere in the data
 * directory), on per key (`payload_capture_days`) or per account (an admin), read only by the owner
 * and admins, secrets scrubbed, long bodies cut and marked, streams reassembled, and dropped with the
 * key when it is revoked with `delete_payloads`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptInDataDirectory, payloadOf, relay } from '../support/captured-payloads.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_ANTHROPIC, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

const CAP = 16 * 1024;
let harness: Harness;
let owner: ConsoleClient;
let stranger: ConsoleClient;
let admin: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness({
    environment: {
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'admin-password-1',
      PAYLOAD_CAPTURE_MAX_BYTES: String(CAP),
    },
  });
  owner = new ConsoleClient(harness.baseUrl);
  await owner.register('owner@example.com');
  stranger = new ConsoleClient(harness.baseUrl);
  await stranger.register('stranger@example.com');
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => harness.stop());

const keptAnywhere = (marker: string) => keptInDataDirectory(harness.dataDirectory, marker);

async function settle(): Promise<void> {
  await sleep(100);
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

describe('payload capture', () => {
  it('keeps nothing of a body when capture is off, the default', async () => {
    const { key, payload_capture_days } = await owner.createToken('plain');
    expect(payload_capture_days).toBe(0);
    const marker = 'BODY-MARKER-OFF-7f3a9c';
    const call = await relay(harness.baseUrl, key, marker);
    const streamed = await relay(harness.baseUrl, key, `${marker}-streamed`, { stream: true });
    expect([call.status, streamed.status]).toEqual([200, 200]);
    await settle();
    expect((await payloadOf(owner, call.requestId, 0)).status).toBe(404);
    expect(keptAnywhere(marker)).toBe(false);
  });

  it('keeps the body and the reply of a key with capture on, for the owner and admins only', async () => {
    const { key, id } = await owner.createToken('captured', { payload_capture_days: 7 });
    const call = await relay(harness.baseUrl, key, 'what is in a name BODY-MARKER-ON-51c2');
    const mine = await payloadOf(owner, call.requestId);
    expect(mine.status).toBe(200);
    // the search that finds nothing with capture off finds this one
    expect(keptAnywhere('BODY-MARKER-ON-51c2')).toBe(true);
    expect(mine.body).toMatchObject({ request_id: call.requestId, token_id: id, status: 200, stream: false });
    expect(mine.body.request.json.messages).toEqual([
      { role: 'user', content: 'what is in a name BODY-MARKER-ON-51c2' },
    ]);
    expect(mine.body.reply.json).toEqual(JSON.parse(call.text));
    expect(Date.parse(mine.body.expires_at) - Date.parse(mine.body.captured_at)).toBe(7 * 86_400_000);
    expect(mine.body.stored_bytes).toBeLessThan(mine.body.raw_bytes);
    expect((await payloadOf(admin, call.requestId, 0)).status).toBe(200);
    const theirs = await payloadOf(stranger, call.requestId, 0);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('payload_not_found');
  });

  it('reassembles a streamed reply into one reply in the client format', async () => {
    const { key } = await owner.createToken('streams', { payload_capture_days: 1 });
    const chat = await relay(harness.baseUrl, key, 'stream me', { stream: true });
    const chatPayload = (await payloadOf(owner, chat.requestId)).body;
    expect(chatPayload.reply.json.object).toBe('chat.completion');
    const deltas = chat.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(chatPayload.reply.json.choices[0].message.content).toBe(deltas);
    const messages = await relay(harness.baseUrl, key, 'stream me too', { stream: true, anthropic: true });
    const messagePayload = (await payloadOf(owner, messages.requestId)).body;
    expect(messagePayload.reply.json).toMatchObject({ type: 'message', role: 'assistant' });
    expect(messagePayload.reply.json.content[0].text.length).toBeGreaterThan(0);
  });

  it('scrubs the gateway key, channel keys and Authorization values from what it keeps', async () => {
    const { key } = await owner.createToken('leaky', { payload_capture_days: 1 });
    const content = `mine ${key} theirs ${UPSTREAM_KEY_OPENAI} ${UPSTREAM_KEY_ANTHROPIC} Authorization: Bearer abcdefgh12345678xyz`;
    const call = await relay(harness.baseUrl, key, content);
    const text = JSON.stringify((await payloadOf(owner, call.requestId)).body);
    for (const secret of [key, UPSTREAM_KEY_OPENAI, UPSTREAM_KEY_ANTHROPIC, 'abcdefgh12345678xyz']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('cuts a body over the cap and marks it', async () => {
    const { key } = await owner.createToken('long', { payload_capture_days: 1 });
    const call = await relay(harness.baseUrl, key, 'x'.repeat(CAP * 2));
    const { request } = (await payloadOf(owner, call.requestId)).body;
    expect(request).toMatchObject({ truncated: true });
    expect(request.bytes).toBeGreaterThan(CAP * 2);
    expect(request.text.length).toBeLessThanOrEqual(CAP);
    expect(request.json).toBeUndefined();
  });

  it('captures every key of an account an admin turned it on for', async () => {
    const me = (await stranger.call('GET', '/api/me')).body;
    const { key } = await stranger.createToken('uncaptured key');
    expect((await admin.call('PATCH', `/api/users/${me.id}`, { payload_capture_days: 3 })).status).toBe(200);
    const call = await relay(harness.baseUrl, key, 'account wide');
    expect((await payloadOf(stranger, call.requestId)).status).toBe(200);
    expect((await payloadOf(owner, call.requestId, 0)).status).toBe(404);
    await admin.call('PATCH', `/api/users/${me.id}`, { payload_capture_days: 0 });
  });

  it('drops a key payloads when it is revoked with delete_payloads, and keeps them on a plain revoke', async () => {
    const kept = await owner.createToken('revoked, kept', { payload_capture_days: 1 });
    const dropped = await owner.createToken('revoked, dropped', { payload_capture_days: 1 });
    const keptCall = await relay(harness.baseUrl, kept.key, 'keep me');
    const droppedCall = await relay(harness.baseUrl, dropped.key, 'drop me BODY-MARKER-DROP-9e1d');
    expect((await payloadOf(owner, keptCall.requestId)).status).toBe(200);
    expect((await payloadOf(owner, droppedCall.requestId)).status).toBe(200);
    expect((await owner.call('DELETE', `/api/tokens/${kept.id}`)).status).toBe(200);
    const revoked = await owner.call('DELETE', `/api/tokens/${dropped.id}?delete_payloads=true`);
    expect(revoked.status).toBe(200);
    expect((await payloadOf(owner, droppedCall.requestId, 0)).status).toBe(404);
    expect((await payloadOf(admin, droppedCall.requestId, 0)).status).toBe(404);
    expect((await payloadOf(owner, keptCall.requestId, 0)).status).toBe(200);
    expect(keptAnywhere('BODY-MARKER-DROP-9e1d')).toBe(false);
  });

  it('refuses a retention out of range with a clear error naming the field', async () => {
    for (const days of [-1, 91, 1.5]) {
      const answer = await owner.call('POST', '/api/tokens', { name: 'bad', payload_capture_days: days });
      expect(answer.status).toBe(400);
      expect(answer.body.error.field).toBe('payload_capture_days');
    }
  });
});
