/**
 * Bedrock channel settings: from the config file (region, AWS credential or API key; the base URL
 * defaults to the region's endpoint) and from the console API (write-only secrets, a key hint made
 * from the access key id), the channel test signing its one-token Converse call, and no AWS secret in
 * plaintext in any event, read model or answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelConfigSchema } from '../../contracts/gateway-config.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { AWS_CREDENTIAL, type BedrockGateway, REGION, startBedrockGateway } from './bedrock-support.ts';

let gateway: BedrockGateway;
let admin: ConsoleClient;

beforeAll(async () => {
  gateway = await startBedrockGateway('bedrock-channels@example.com', {
    ADMIN_EMAIL: 'root@example.com',
    ADMIN_PASSWORD: 'admin-password-1',
  });
  admin = new ConsoleClient(gateway.harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => {
  await gateway.harness.stop();
  await gateway.bedrock.close();
});

const secrets = [AWS_CREDENTIAL.secretAccessKey, AWS_CREDENTIAL.sessionToken];

describe('bedrock channels in the config file', () => {
  it('needs a region, defaults the base URL to its endpoint, and takes a credential or an API key', () => {
    const base = { name: 'b', type: 'bedrock', models: ['m'] };
    const parsed = channelConfigSchema.safeParse({ ...base, region: 'eu-central-1', api_key: 'ABSK0123456789' });
    expect(parsed.success).toBe(true);
    const issues = (input: object) =>
      channelConfigSchema.safeParse(input).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues({ ...base, api_key: 'k' })).toEqual([
      'region: a bedrock channel needs its AWS region (e.g. us-east-1)',
    ]);
    expect(issues({ ...base, region: 'us-east-1', access_key_id: 'AKIA' })).toEqual([
      'secret_access_key: give both access_key_id and secret_access_key',
    ]);
    expect(issues({ ...base, region: 'not a region', api_key: 'k' })?.[0]).toMatch(/^region: must be an AWS region/);
    expect(issues({ ...base, type: 'openai', access_key_id: 'a', secret_access_key: 'b' })).toEqual([
      'base_url: must be an absolute http(s) URL',
      'access_key_id: AWS credentials are for bedrock channels only',
    ]);
  });

  it('keeps the AWS credential encrypted in the channel table and its events', async () => {
    const channels = gateway.harness.runtime.stores.lookups.channels();
    const seeded = channels.find((channel) => channel.name === 'bedrock-sigv4')!;
    expect(seeded).toMatchObject({ type: 'bedrock', region: REGION, baseUrl: gateway.bedrock.url });
    const stored = JSON.stringify(channels);
    for (const secret of [...secrets, AWS_CREDENTIAL.accessKeyId]) expect(stored).not.toContain(secret);
  });
});

describe('bedrock channels in the console', () => {
  it('adds a signing channel whose secrets are never returned, and tests it with a signed call', async () => {
    const created = await admin.call('POST', '/api/channels', {
      name: 'console-bedrock',
      type: 'bedrock',
      base_url: gateway.bedrock.url,
      region: REGION,
      access_key_id: AWS_CREDENTIAL.accessKeyId,
      secret_access_key: AWS_CREDENTIAL.secretAccessKey,
      session_token: AWS_CREDENTIAL.sessionToken,
      models: ['claude-console'],
      model_mapping: { 'claude-console': 'anthropic.claude-3-haiku-20240307-v1:0' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'bedrock', region: REGION, key_hint: '••••MPLE' });
    const list = JSON.stringify((await admin.call('GET', '/api/channels')).body);
    for (const secret of secrets) expect(list).not.toContain(secret);
    gateway.bedrock.reset();
    const tested = await admin.call('POST', `/api/channels/${created.body.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: true, status: 200, error: null });
    expect(gateway.bedrock.requests[0]).toMatchObject({
      modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
      body: { messages: [{ role: 'user', content: [{ text: 'ping' }] }], inferenceConfig: { maxTokens: 1 } },
    });
    expect(gateway.bedrock.requests[0]!.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('reports a wrong secret as the channel test failure, without echoing it', async () => {
    const created = await admin.call('POST', '/api/channels', {
      name: 'console-bedrock-wrong',
      type: 'bedrock',
      base_url: gateway.bedrock.url,
      region: REGION,
      access_key_id: AWS_CREDENTIAL.accessKeyId,
      secret_access_key: 'wrongWRONGwrongWRONGwrongWRONGwrong00000',
      models: ['claude-wrong'],
    });
    const tested = await admin.call('POST', `/api/channels/${created.body.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: false, status: 403 });
    expect(tested.body.error).toMatch(/refused this channel's credentials/);
  });

  it('defaults the base URL to the region endpoint and refuses a bedrock channel without a region', async () => {
    const missing = await admin.call('POST', '/api/channels', {
      name: 'no-region',
      type: 'bedrock',
      api_key: 'ABSK0123456789abcdef',
      models: ['x'],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('base_url');
    const regional = await admin.call('POST', '/api/channels', {
      name: 'regional',
      type: 'bedrock',
      region: 'eu-west-3',
      api_key: 'ABSK0123456789abcdef',
      models: ['y'],
    });
    expect(regional.status).toBe(201);
    expect(regional.body).toMatchObject({
      base_url: 'https://bedrock-runtime.eu-west-3.amazonaws.com',
      key_hint: '••••cdef',
    });
  });
});
