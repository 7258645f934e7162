/**
 * @module gateway/console-api/channel-routes
 * Administrators manage the upstream channels: list, add, change, remove, and test with a one-token
 * request. The upstream key is write-only: answers carry only a masked hint.
 */
import { isIP } from 'node:net';
import { Router } from 'express';
import { readBedrockSecret } from '../../contracts/bedrock/credentials.ts';
import {
  type ChannelUsageList,
  type ChannelView,
  channelTestRequestSchema,
  channelUsageQuerySchema,
  createChannelRequestSchema,
  updateChannelRequestSchema,
} from '../../contracts/console-api.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import {
  channelById,
  createChannel,
  refuseConfigChannelChange,
  removeChannel,
  trimmedBaseUrl,
  updateChannel,
} from '../commands/channel-admin.ts';
import { baseUrlOf, keyCiphertextsOf } from '../commands/channels.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { testChannel } from '../commands/test-channel.ts';
import type { ChannelHealth } from '../relay/circuit-breaker.ts';
import { decryptSecret } from '../security/upstream-key-cipher.ts';
import { assertPublicUrl, BlockedUrlError } from '../security/url-guard.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { adminUser } from './guards.ts';

const HOUR_MS = 3_600_000;

/** `••••` and the key's last four characters (none of a short key), so admins can tell keys apart. */
export function maskKey(key: string): string {
  return `••••${key.length >= 12 ? key.slice(-4) : ''}`;
}

/** What a key slot's hint is made from: a bedrock channel's AWS credential shows its access key id. */
function shownKey(type: ChannelDocument['type'], secret: string): string {
  if (type !== 'bedrock') return secret;
  const read = readBedrockSecret(secret);
  return read.kind === 'sigv4' ? read.credential.accessKeyId : read.apiKey;
}

export function channelView(
  channel: ChannelDocument,
  encryptionKey: Buffer,
  health?: (channelId: string) => ChannelHealth,
): ChannelView {
  let hint = '••••';
  try {
    hint = maskKey(shownKey(channel.type, decryptSecret(channel.apiKeyCiphertext, encryptionKey)));
  } catch {
    // A key encrypted under another secret stays fully masked.
  }
  return {
    id: channel.channelId,
    name: channel.name,
    type: channel.type,
    base_url: channel.baseUrl,
    key_hint: hint,
    ...(channel.region !== undefined && { region: channel.region }),
    models: channel.models,
    model_mapping: channel.modelMapping,
    priority: channel.priority,
    weight: channel.weight,
    thinking_to_content: channel.thinkingToContent,
    responses_api: channel.responsesApi === true,
    ...(channel.apiVersion !== undefined && { api_version: channel.apiVersion }),
    enabled: channel.enabled,
    source: channel.source ?? 'console',
    updated_at: channel.updatedAt,
    key_count: keyCiphertextsOf(channel).length,
    connect_timeout_ms: channel.connectTimeoutMs ?? null,
    first_byte_timeout_ms: channel.firstByteTimeoutMs ?? null,
    idle_timeout_ms: channel.idleTimeoutMs ?? null,
    ...(health && { health: healthView(health(channel.channelId)) }),
  };
}

function healthView(health: ChannelHealth): NonNullable<ChannelView['health']> {
  return {
    state: health.state,
    consecutive_failures: health.consecutiveFailures,
    opened_at: health.openedAt === null ? null : new Date(health.openedAt).toISOString(),
  };
}

/**
 * The server-side request forgery guard on URLs entered in the console (see security/url-guard): a base
 * URL on a private, loopback or link-local address is refused unless ALLOW_PRIVATE_UPSTREAMS=true.
 * `hostNamesOnly` (the channel test) re-resolves host names only: a name re-pointed at an internal
 * address after it was entered is refused, while literal addresses were judged when entered (or come
 * from the operator's config file, which is not checked).
 */
async function refusePrivateUpstream(url: string, allowPrivate: boolean, { hostNamesOnly = false } = {}) {
  if (hostNamesOnly && isIP(new URL(url).hostname.replace(/^\[|\]$/g, ''))) return;
  try {
    await assertPublicUrl(url, { allowPrivate });
  } catch (error) {
    if (error instanceof BlockedUrlError)
      throw new ApiError(400, 'upstream_address_refused', error.message, 'base_url');
    throw error;
  }
}

export function channelRoutes(
  context: CommandContext,
  health: ((channelId: string) => ChannelHealth) | undefined,
  allowPrivate: boolean,
): Router {
  const router = Router();
  const view = (channel: ChannelDocument) => channelView(channel, context.keys.encryption, health);

  router.get('/channels', (request, response) => {
    adminUser(request);
    const channels = context.stores.lookups
      .channels()
      .sort((left, right) => right.priority - left.priority || left.name.localeCompare(right.name));
    response.json({ items: channels.map(view) });
  });

  /** Each channel's calls, errors and average latency over the last `hours` (1 to 168; 24 by default). */
  router.get('/channels/usage', async (request, response) => {
    adminUser(request);
    const { hours } = parseOrThrow(channelUsageQuerySchema, request.query);
    const since = Math.floor((context.now().getTime() - hours * HOUR_MS) / HOUR_MS) * HOUR_MS;
    const items = await context.stores.usage.channelUsage(since);
    response.json({ since: new Date(since).toISOString(), items } satisfies ChannelUsageList);
  });

  router.post('/channels', async (request, response) => {
    adminUser(request);
    const input = parseOrThrow(createChannelRequestSchema, request.body);
    await refusePrivateUpstream(baseUrlOf(input), allowPrivate);
    response.status(201).json(view(await createChannel(context, input)));
  });

  router.patch('/channels/:id', async (request, response) => {
    adminUser(request);
    const input = parseOrThrow(updateChannelRequestSchema, request.body);
    const stored = channelById(context, request.params.id!);
    refuseConfigChannelChange(stored);
    // Only a changed URL is judged: a form that re-sends the stored one (entered before the guard, or
    // while ALLOW_PRIVATE_UPSTREAMS was on) must not block a change to the weight.
    if (input.base_url !== undefined && trimmedBaseUrl(input.base_url) !== stored.baseUrl)
      await refusePrivateUpstream(input.base_url, allowPrivate);
    response.json(view(await updateChannel(context, request.params.id!, input)));
  });

  router.delete('/channels/:id', async (request, response) => {
    adminUser(request);
    await removeChannel(context, request.params.id!);
    response.status(204).end();
  });

  router.post('/channels/:id/test', async (request, response) => {
    adminUser(request);
    const input = parseOrThrow(channelTestRequestSchema, request.body ?? {});
    const channel = channelById(context, request.params.id!);
    await refusePrivateUpstream(channel.baseUrl, allowPrivate, { hostNamesOnly: true });
    response.json(await testChannel(channel, context.keys.encryption, input.model, { publicOnly: !allowPrivate }));
  });

  return router;
}
