/**
 * @module gateway/commands/channels
 * Seeds channels from the GATEWAY_CONFIG file. A channel's id derives from its name, so restarting with
 * the same file changes nothing, and an edited entry updates the channel in place. Only changed
 * channels produce events.
 */
import { createHash } from 'node:crypto';
import type { ChannelConfig } from '../../contracts/gateway-config.ts';
import { newEvent } from '../events/new-event.ts';
import { decryptSecret, encryptSecret } from '../security/upstream-key-cipher.ts';
import { type CommandContext, commit } from './command-context.ts';

export function channelIdOf(name: string): string {
  return `ch_${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

export async function seedChannels(context: CommandContext, channels: readonly ChannelConfig[]): Promise<number> {
  const events = [];
  for (const channel of channels) {
    const channelId = channelIdOf(channel.name);
    const existing = context.stores.lookups.channels().find((document) => document.channelId === channelId);
    const wanted = {
      channelId,
      name: channel.name,
      type: channel.type,
      baseUrl: channel.base_url.replace(/\/+$/, ''),
      models: channel.models,
      modelMapping: channel.model_mapping,
      priority: channel.priority,
      weight: channel.weight,
      thinkingToContent: channel.thinking_to_content,
      enabled: channel.enabled,
    };
    if (existing) {
      const { apiKeyCiphertext, updatedAt: _updatedAt, ...rest } = existing;
      const sameKey = decryptSecret(apiKeyCiphertext, context.keys.encryption) === channel.api_key;
      if (sameKey && JSON.stringify(rest) === JSON.stringify(wanted)) continue;
    }
    const apiKeyCiphertext = encryptSecret(channel.api_key, context.keys.encryption);
    events.push(newEvent('channel.configured', { ...wanted, apiKeyCiphertext }, context.now()));
  }
  if (events.length > 0) await commit(context, ...events);
  return events.length;
}
