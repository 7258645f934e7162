import type { ChannelView } from '@contracts/console-api.ts';
import { describe, expect, it } from 'vitest';
import { blankChannelForm, channelFormOf, createRequestOf, updateRequestOf } from './channel-form.ts';

describe('channel form: keys and timeouts', () => {
  it('sends one key as api_key, several as api_keys, and typed timeouts as numbers', () => {
    const form = { ...blankChannelForm(), name: 'pool', models: 'gpt-4o-mini', apiKey: ' sk-one ' };
    expect(createRequestOf(form, {})).toMatchObject({ api_key: 'sk-one', connect_timeout_ms: null });
    const several = { ...form, apiKey: 'sk-one, sk-two', firstByteTimeout: 30000, idleTimeout: '60000' };
    const request = createRequestOf(several, {});
    expect(request).toMatchObject({
      api_keys: ['sk-one', 'sk-two'],
      first_byte_timeout_ms: 30000,
      idle_timeout_ms: 60000,
    });
    expect('api_key' in request).toBe(false);
  });

  it('keeps the stored keys when none were typed on edit', () => {
    const stored: ChannelView = {
      id: 'c1',
      name: 'pool',
      type: 'openai',
      base_url: 'https://api.openai.com/v1',
      key_hint: '••••abcd',
      models: ['m'],
      model_mapping: {},
      priority: 0,
      weight: 1,
      thinking_to_content: false,
      enabled: true,
      source: 'console',
      updated_at: '2025-01-01T00:00:00.000Z',
    };
    const request = updateRequestOf(stored, { ...channelFormOf(stored), priority: 2 }, {});
    expect(request).toEqual({ priority: 2 });
  });
});

describe('channel form: azure api_version', () => {
  const azure: ChannelView = {
    id: 'c2',
    name: 'azure',
    type: 'azure',
    base_url: 'https://contoso.openai.azure.com',
    key_hint: '••••abcd',
    models: ['gpt-4o'],
    model_mapping: {},
    priority: 0,
    weight: 1,
    thinking_to_content: false,
    api_version: '2024-10-21',
    enabled: true,
    source: 'console',
    updated_at: '2025-01-01T00:00:00.000Z',
  };

  it('sends api_version for azure channels only, empty as the default', () => {
    const form = {
      ...blankChannelForm(),
      type: 'azure' as const,
      name: 'a',
      models: 'm',
      apiKey: 'k',
      apiVersion: ' 2025-04-01-preview ',
    };
    expect(createRequestOf(form, {})).toMatchObject({ type: 'azure', api_version: '2025-04-01-preview' });
    expect(createRequestOf({ ...form, apiVersion: '' }, {})).toMatchObject({ api_version: null });
    expect('api_version' in createRequestOf({ ...form, type: 'openai' }, {})).toBe(false);
  });

  it('shows the stored version and sends it only when it changed', () => {
    expect(channelFormOf(azure).apiVersion).toBe('2024-10-21');
    expect(updateRequestOf(azure, channelFormOf(azure), {})).toEqual({});
    expect(updateRequestOf(azure, { ...channelFormOf(azure), apiVersion: '' }, {})).toEqual({ api_version: null });
  });
});
