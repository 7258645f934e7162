import type { ChannelView } from '@contracts/console-api.ts';
import { createChannelRequestSchema, updateChannelRequestSchema } from '@contracts/console-api.ts';
import { describe, expect, it } from 'vitest';
import { blankChannelForm, channelFormOf, createRequestOf, updateRequestOf } from './channel-form.ts';

describe('channel form: bedrock', () => {
  const form = {
    ...blankChannelForm(),
    name: 'bedrock',
    type: 'bedrock' as const,
    baseUrl: '',
    region: ' us-west-2 ',
    models: 'claude',
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  };

  it('sends the region and the AWS credential, no base URL when none was typed, and the API accepts it', () => {
    const request = createRequestOf(form, {});
    expect(request).toMatchObject({
      type: 'bedrock',
      region: 'us-west-2',
      access_key_id: 'AKIAIOSFODNN7EXAMPLE',
      secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    expect(request.base_url).toBeUndefined();
    expect('api_key' in request).toBe(false);
    expect(createChannelRequestSchema.safeParse(request).success).toBe(true);
  });

  it('sends a Bedrock API key as the upstream key when no access key is typed', () => {
    const request = createRequestOf({ ...form, accessKeyId: '', secretAccessKey: '', apiKey: 'ABSKexample0123' }, {});
    expect(request).toMatchObject({ api_key: 'ABSKexample0123', region: 'us-west-2' });
    expect(createChannelRequestSchema.safeParse(request).success).toBe(true);
  });

  it('keeps the stored credential on edit unless a new one is typed', () => {
    const stored: ChannelView = {
      id: 'c1',
      name: 'bedrock',
      type: 'bedrock',
      base_url: 'https://bedrock-runtime.us-west-2.amazonaws.com',
      region: 'us-west-2',
      key_hint: '••••MPLE',
      models: ['claude'],
      model_mapping: {},
      priority: 0,
      weight: 1,
      thinking_to_content: false,
      enabled: true,
      source: 'console',
      updated_at: '2025-01-01T00:00:00.000Z',
    };
    expect(updateRequestOf(stored, { ...channelFormOf(stored), weight: 2 }, {})).toEqual({ weight: 2 });
    const replaced = updateRequestOf(
      stored,
      { ...channelFormOf(stored), accessKeyId: 'AKIANEWKEYEXAMPLE000', secretAccessKey: 'new-secret-0123456789' },
      {},
    );
    expect(replaced).toEqual({ access_key_id: 'AKIANEWKEYEXAMPLE000', secret_access_key: 'new-secret-0123456789' });
    expect(updateChannelRequestSchema.safeParse(replaced).success).toBe(true);
  });
});
