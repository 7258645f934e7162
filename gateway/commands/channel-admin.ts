/**
 * @module gateway/commands/channel-admin
 * Channels added, changed and removed by administrators in the console. Every change appends a whole
 * `channel.configured` snapshot (or `channel.removed`); the upstream key is encrypted before it enters
 * the event and is kept as it was when an update does not replace it. Channels from the config file
 * are read-only here: the next start would silently put the file's entry back.
 */
import type { CreateChannelRequest, UpdateChannelRequest } from '../../contracts/console-api.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { baseUrlOf, channelIdOf, encryptedKeys, upstreamKeysOf } from './channels.ts';
import { type CommandContext, commit } from './command-context.ts';
import { CommandError } from './errors.ts';

export function channelById(context: CommandContext, channelId: string): ChannelDocument {
  const channel = context.stores.lookups.channels().find((document) => document.channelId === channelId);
  if (!channel) throw new CommandError('not_found', 'channel_not_found', 'No such channel.');
  return channel;
}

/** Exported so that the console API can refuse before it checks anything else about the change. */
export function refuseConfigChannelChange(channel: Pick<ChannelDocument, 'name' | 'source'>): void {
  if (channel.source !== 'config') return;
  throw new CommandError(
    'conflict',
    'channel_from_config',
    `The channel "${channel.name}" comes from the gateway's config file (GATEWAY_CONFIG): change or remove it there, then restart the gateway. Changes made here would be undone at the next start.`,
  );
}

function refuseTakenName(context: CommandContext, name: string, exceptId?: string): void {
  const taken = context.stores.lookups
    .channels()
    .some(
      (channel) => channel.channelId !== exceptId && (channel.name === name || channel.channelId === channelIdOf(name)),
    );
  if (taken)
    throw new CommandError('conflict', 'channel_name_taken', `A channel named "${name}" already exists.`, 'name');
}

export function trimmedBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

export async function createChannel(context: CommandContext, input: CreateChannelRequest): Promise<ChannelDocument> {
  refuseTakenName(context, input.name);
  // Ids derive from the name as for seeded channels: adding this entry to the config file later updates it.
  const channelId = channelIdOf(input.name);
  await commit(
    context,
    newEvent(
      'channel.configured',
      {
        channelId,
        name: input.name,
        type: input.type,
        baseUrl: baseUrlOf(input),
        ...encryptedKeys(upstreamKeysOf(input), context.keys.encryption),
        models: [...new Set(input.models)],
        modelMapping: input.model_mapping ?? {},
        priority: input.priority ?? 0,
        weight: input.weight ?? 1,
        thinkingToContent: input.thinking_to_content ?? false,
        ...(input.responses_api && { responsesApi: true }),
        ...(input.api_version != null && { apiVersion: input.api_version }),
        enabled: input.enabled ?? true,
        ...timeoutFields(input),
        ...(input.region !== undefined && { region: input.region }),
      },
      context.now(),
    ),
  );
  return channelById(context, channelId);
}

export async function updateChannel(
  context: CommandContext,
  channelId: string,
  input: UpdateChannelRequest,
): Promise<ChannelDocument> {
  const { updatedAt: _updatedAt, ...existing } = channelById(context, channelId);
  refuseConfigChannelChange(existing);
  const newKeys = upstreamKeysOf(input);
  const replacesKeys = newKeys.length > 0;
  const {
    apiKeyCiphertexts: _keys,
    connectTimeoutMs,
    firstByteTimeoutMs,
    idleTimeoutMs,
    apiVersion: storedApiVersion,
    ...current
  } = existing;
  const apiVersion = apiVersionAfter(input, current.type, storedApiVersion);
  const timeouts = {
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
    ...(firstByteTimeoutMs !== undefined && { firstByteTimeoutMs }),
    ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
  };
  for (const [field, name] of [
    ['connect_timeout_ms', 'connectTimeoutMs'],
    ['first_byte_timeout_ms', 'firstByteTimeoutMs'],
    ['idle_timeout_ms', 'idleTimeoutMs'],
  ] as const) {
    const value = input[field];
    if (value === null) delete timeouts[name];
    else if (value !== undefined) timeouts[name] = value;
  }
  if (input.name !== undefined && input.name !== current.name) refuseTakenName(context, input.name, channelId);
  await commit(
    context,
    newEvent(
      'channel.configured',
      {
        ...current,
        ...(!replacesKeys && _keys && { apiKeyCiphertexts: _keys }),
        ...timeouts,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.type !== undefined && { type: input.type }),
        ...(input.base_url !== undefined && { baseUrl: trimmedBaseUrl(input.base_url) }),
        ...(input.region !== undefined && { region: input.region }),
        ...(replacesKeys && encryptedKeys(newKeys, context.keys.encryption)),
        ...(input.models !== undefined && { models: [...new Set(input.models)] }),
        ...(input.model_mapping !== undefined && { modelMapping: input.model_mapping }),
        ...(input.priority !== undefined && { priority: input.priority }),
        ...(input.weight !== undefined && { weight: input.weight }),
        ...(input.thinking_to_content !== undefined && { thinkingToContent: input.thinking_to_content }),
        ...(input.responses_api !== undefined && { responsesApi: input.responses_api }),
        ...(apiVersion !== undefined && { apiVersion }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
      },
      context.now(),
    ),
  );
  return channelById(context, channelId);
}

/**
 * The `api-version` a channel keeps after an update: null clears it, and a channel that stops being
 * azure drops it (it would mean nothing), while setting it on another kind is refused.
 */
function apiVersionAfter(input: UpdateChannelRequest, storedType: string, stored: string | undefined) {
  const type = input.type ?? storedType;
  if (input.api_version != null && type !== 'azure') {
    throw new CommandError(
      'invalid',
      'invalid_request',
      'api_version is a setting of azure channels only.',
      'api_version',
    );
  }
  if (type !== 'azure' || input.api_version === null) return undefined;
  return input.api_version ?? stored;
}

function timeoutFields(input: CreateChannelRequest) {
  return {
    ...(input.connect_timeout_ms != null && { connectTimeoutMs: input.connect_timeout_ms }),
    ...(input.first_byte_timeout_ms != null && { firstByteTimeoutMs: input.first_byte_timeout_ms }),
    ...(input.idle_timeout_ms != null && { idleTimeoutMs: input.idle_timeout_ms }),
  };
}

export async function removeChannel(context: CommandContext, channelId: string): Promise<void> {
  refuseConfigChannelChange(channelById(context, channelId));
  await commit(context, newEvent('channel.removed', { channelId }, context.now()));
}
