/**
 * @module gateway/commands/channels
 * Seeds channels from the GATEWAY_CONFIG file. A channel's id derives from its name, so restarting with
 * the same file changes nothing, and an edited entry updates the channel in place. Only changed
 * channels produce events. Seeded channels are marked `source: config` (the console shows them
 * read-only, as the next start would undo its edits); one that is no longer in the file is handed to
 * the console, which may then edit or remove it.
 */
import { createHash } from 'node:crypto';
import { bedrockEndpoint, storedAwsCredential } from '../../contracts/bedrock/credentials.ts';
import type { ChannelConfig } from '../../contracts/gateway-config.ts';
import { newEvent } from '../events/new-event.ts';
import { decryptSecret, encryptSecret } from '../security/upstream-key-cipher.ts';
import { type CommandContext, commit } from './command-context.ts';

export function channelIdOf(name: string): string {
  return `ch_${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/** The key fields of a `channel.configured` event: the first key, and the whole list when there are several. */
export function encryptedKeys(keys: readonly string[], encryptionKey: Buffer) {
  const ciphertexts = keys.map((key) => encryptSecret(key, encryptionKey));
  return {
    apiKeyCiphertext: ciphertexts[0]!,
    ...(ciphertexts.length > 1 && { apiKeyCiphertexts: ciphertexts }),
  };
}

interface KeyFields {
  api_key?: string | undefined;
  api_keys?: string[] | undefined;
  access_key_id?: string | undefined;
  secret_access_key?: string | undefined;
  session_token?: string | undefined;
}

/**
 * The secrets a channel's key slots hold, in the order they are used: its keys, or (bedrock) its AWS
 * credential as one slot (contracts/bedrock/credentials.ts); empty when the fields hold none.
 */
export function upstreamKeysOf(fields: KeyFields): string[] {
  if (fields.api_keys) return fields.api_keys;
  if (fields.access_key_id !== undefined && fields.secret_access_key !== undefined) {
    return [
      storedAwsCredential({
        accessKeyId: fields.access_key_id,
        secretAccessKey: fields.secret_access_key,
        ...(fields.session_token !== undefined && { sessionToken: fields.session_token }),
      }),
    ];
  }
  return fields.api_key !== undefined ? [fields.api_key] : [];
}

/** The base URL a channel is called at: the one given, else (bedrock) its region's endpoint. */
export function baseUrlOf(fields: { base_url?: string | undefined; region?: string | undefined }): string {
  return (fields.base_url ?? bedrockEndpoint(fields.region ?? 'us-east-1')).replace(/\/+$/, '');
}

/** Every upstream key of a channel document, encrypted, in the order they are used. */
export function keyCiphertextsOf(document: { apiKeyCiphertext: string; apiKeyCiphertexts?: string[] }): string[] {
  return document.apiKeyCiphertexts ?? [document.apiKeyCiphertext];
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
      baseUrl: baseUrlOf(channel),
      models: channel.models,
      modelMapping: channel.model_mapping,
      priority: channel.priority,
      weight: channel.weight,
      thinkingToContent: channel.thinking_to_content,
      enabled: channel.enabled,
      source: 'config' as const,
      // Only when set: channels seeded before the field existed stay unchanged.
      ...(channel.responses_api && { responsesApi: true }),
      ...(channel.api_version !== undefined && { apiVersion: channel.api_version }),
      ...(channel.connect_timeout_ms !== undefined && { connectTimeoutMs: channel.connect_timeout_ms }),
      ...(channel.first_byte_timeout_ms !== undefined && { firstByteTimeoutMs: channel.first_byte_timeout_ms }),
      ...(channel.idle_timeout_ms !== undefined && { idleTimeoutMs: channel.idle_timeout_ms }),
      ...(channel.region !== undefined && { region: channel.region }),
    };
    const keys = upstreamKeysOf(channel);
    if (existing) {
      const { apiKeyCiphertext: _first, apiKeyCiphertexts: _all, updatedAt: _updatedAt, ...rest } = existing;
      let sameKeys = false;
      try {
        const current = keyCiphertextsOf(existing).map((ciphertext) =>
          decryptSecret(ciphertext, context.keys.encryption),
        );
        sameKeys = JSON.stringify(current) === JSON.stringify(keys);
      } catch {
        // Encrypted under another secret: re-encrypt under this one.
      }
      if (sameKeys && JSON.stringify(rest) === JSON.stringify(wanted)) continue;
    }
    events.push(
      newEvent('channel.configured', { ...wanted, ...encryptedKeys(keys, context.keys.encryption) }, context.now()),
    );
  }
  const seeded = new Set(channels.map((channel) => channelIdOf(channel.name)));
  for (const { updatedAt: _updatedAt, ...left } of context.stores.lookups.channels()) {
    if (left.source === 'config' && !seeded.has(left.channelId)) {
      events.push(newEvent('channel.configured', { ...left, source: 'console' as const }, context.now()));
    }
  }
  if (events.length > 0) await commit(context, ...events);
  return events.length;
}
