/**
 * Channels in the console by where they come from: a channel from the GATEWAY_CONFIG file is marked
 * `source: config` and refused changes (the next start would undo them), a channel the file no longer
 * holds is handed to the console, and a change that leaves the stored base URL as it was is not judged
 * by the private-address guard (here switched on, as in production).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const ADMIN = { email: 'root@example.com', password: 'admin-password-1' };
let harness: Harness;
let admin: ConsoleClient;

async function signIn(): Promise<void> {
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', ADMIN);
}

async function channelNamed(name: string): Promise<Record<string, any>> {
  const list = await admin.call('GET', '/api/channels');
  return list.body.items.find((item: { name: string }) => item.name === name);
}

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ALLOW_PRIVATE_UPSTREAMS: 'false' },
    // On the fake upstream's loopback address, as an operator's internal model server would be.
    extraChannels: [{ name: 'internal-box', type: 'openai', models: ['box-model'] }],
  });
  await signIn();
});
afterAll(async () => harness?.stop());

describe('a channel from the config file', () => {
  it('is marked as such, and console channels as console', async () => {
    expect(await channelNamed('internal-box')).toMatchObject({ source: 'config' });
    const created = await admin.call('POST', '/api/channels', {
      name: 'public-one',
      type: 'openai',
      base_url: 'https://93.184.215.14/v1',
      api_key: 'sk-public-one-0000',
      models: ['public-model'],
    });
    expect(created.status).toBe(201);
    expect(created.body.source).toBe('console');
  });

  it('refuses changes and removal with a 409 that says where to change it, and still tests', async () => {
    const channel = await channelNamed('internal-box');
    const edited = await admin.call('PATCH', `/api/channels/${channel.id}`, { weight: 4 });
    expect(edited.status).toBe(409);
    expect(edited.body.error.code).toBe('channel_from_config');
    expect(edited.body.error.message).toMatch(/config file \(GATEWAY_CONFIG\)/);
    const removed = await admin.call('DELETE', `/api/channels/${channel.id}`);
    expect(removed.status).toBe(409);
    expect(await channelNamed('internal-box')).toMatchObject({ weight: 1, source: 'config' });
    expect((await admin.call('POST', `/api/channels/${channel.id}/test`, {})).body.ok).toBe(true);
  });
});

describe('a channel the config file no longer holds', () => {
  beforeAll(async () => {
    const file = path.join(harness.dataDirectory, 'gateway.yaml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.indexOf('  - name: internal-box')));
    await harness.restart();
    await signIn();
  });

  it('is handed to the console; the file channels stay marked', async () => {
    expect(await channelNamed('internal-box')).toMatchObject({ source: 'console' });
    expect(await channelNamed('fake-openai')).toMatchObject({ source: 'config' });
  });

  it('takes a weight change although its unchanged base URL is private; a changed private URL is refused', async () => {
    const channel = await channelNamed('internal-box');
    // What the console's form sent before it sent only changed fields: every field, the URL included.
    const weightOnly = await admin.call('PATCH', `/api/channels/${channel.id}`, {
      base_url: `${channel.base_url}/`,
      weight: 4,
    });
    expect(weightOnly.status).toBe(200);
    expect(weightOnly.body).toMatchObject({ weight: 4, base_url: channel.base_url });
    const moved = await admin.call('PATCH', `/api/channels/${channel.id}`, { base_url: 'http://127.0.0.1:9/v1' });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatchObject({ code: 'upstream_address_refused', field: 'base_url' });
    expect((await admin.call('DELETE', `/api/channels/${channel.id}`)).status).toBe(204);
  });
});
