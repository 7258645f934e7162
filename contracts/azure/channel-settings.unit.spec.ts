import { describe, expect, it } from 'vitest';
import { createChannelRequestSchema, updateChannelRequestSchema } from '../console-api.ts';
import { channelConfiguredV1 } from '../events/entity-events.ts';
import { gatewayConfigFileSchema } from '../gateway-config.ts';
import { azureApiVersionSchema } from './channel-settings.ts';

const azureChannel = {
  name: 'azure',
  type: 'azure',
  base_url: 'https://contoso.openai.azure.com',
  api_key: 'key',
  models: ['gpt-4o'],
};

describe('an azure channel api_version', () => {
  it('is a dated GA or preview version, nothing that could change the URL', () => {
    for (const version of ['2024-10-21', '2025-04-01-preview', ' 2024-06-01 ']) {
      expect(azureApiVersionSchema.safeParse(version).success).toBe(true);
    }
    for (const version of ['latest', '2024-10-21&x=1', '2024-10-21/../', '', 'v1']) {
      expect(azureApiVersionSchema.safeParse(version).success).toBe(false);
    }
  });

  it('is accepted on azure channels of the config file and refused on other kinds', () => {
    const azure = gatewayConfigFileSchema.parse({ channels: [{ ...azureChannel, api_version: '2024-10-21' }] });
    expect(azure.channels[0]).toMatchObject({ type: 'azure', api_version: '2024-10-21' });
    const openai = gatewayConfigFileSchema.safeParse({
      channels: [{ ...azureChannel, type: 'openai', api_version: '2024-10-21' }],
    });
    expect(openai.success).toBe(false);
    expect(openai.error?.issues[0]).toMatchObject({
      path: ['channels', 0, 'api_version'],
      message: 'is a setting of azure channels only',
    });
  });

  it('is accepted by the console API on azure channels, null clearing it on update', () => {
    expect(createChannelRequestSchema.safeParse({ ...azureChannel, api_version: '2024-10-21' }).success).toBe(true);
    expect(
      createChannelRequestSchema.safeParse({ ...azureChannel, type: 'anthropic', api_version: '2024-10-21' }).success,
    ).toBe(false);
    expect(updateChannelRequestSchema.parse({ api_version: null })).toEqual({ api_version: null });
  });

  it('travels in channel.configured as an optional field, older events staying valid', () => {
    const body = {
      channelId: 'ch_1',
      name: 'azure',
      type: 'azure',
      baseUrl: 'https://contoso.openai.azure.com',
      apiKeyCiphertext: 'x.y.z',
      models: ['gpt-4o'],
      modelMapping: {},
      priority: 0,
      weight: 1,
      thinkingToContent: false,
      enabled: true,
    };
    const envelope = {
      type: 'channel.configured',
      version: 1,
      eventId: '01938f2e-7b6a-7c3d-9e1f-2a3b4c5d6e7f',
      occurredAt: '2026-01-01T00:00:00.000Z',
    };
    expect(channelConfiguredV1.safeParse({ ...envelope, body: { ...body, apiVersion: '2024-10-21' } }).success).toBe(
      true,
    );
    expect(channelConfiguredV1.safeParse({ ...envelope, body }).success).toBe(true);
  });
});
