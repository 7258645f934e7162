/**
 * @module gateway/console-api/channel-routes
 * Administrators manage the upstream channels: list, add, change, remove, and test with a one-token
 * request. The upstream key is write-only: answers carry only a masked hint.
 */
import { Router } from 'express';
import {
  type ChannelView,
  channelTestRequestSchema,
  createChannelRequestSchema,
  updateChannelRequestSchema,
} from '../../contracts/console-api.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import { channelById, createChannel, removeChannel, updateChannel } from '../commands/channel-admin.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { testChannel } from '../commands/test-channel.ts';
import { decryptSecret } from '../security/upstream-key-cipher.ts';
import { parseOrThrow } from './api-error.ts';
import { adminUser } from './guards.ts';

/** `••••` and the key's last four characters (none of a short key), so admins can tell keys apart. */
export function maskKey(key: string): string {
  return `••••${key.length >= 12 ? key.slice(-4) : ''}`;
}

export function channelView(channel: ChannelDocument, encryptionKey: Buffer): ChannelView {
  let hint = '••••';
  try {
    hint = maskKey(decryptSecret(channel.apiKeyCiphertext, encryptionKey));
  } catch {
    // A key encrypted under another secret stays fully masked.
  }
  return {
    id: channel.channelId,
    name: channel.name,
    type: channel.type,
    base_url: channel.baseUrl,
    key_hint: hint,
    models: channel.models,
    model_mapping: channel.modelMapping,
    priority: channel.priority,
    weight: channel.weight,
    thinking_to_content: channel.thinkingToContent,
    enabled: channel.enabled,
    updated_at: channel.updatedAt,
  };
}

export function channelRoutes(context: CommandContext): Router {
  const router = Router();
  const view = (channel: ChannelDocument) => channelView(channel, context.keys.encryption);

  router.get('/channels', (request, response) => {
    adminUser(request);
    const channels = context.stores.lookups
      .channels()
      .sort((left, right) => right.priority - left.priority || left.name.localeCompare(right.name));
    response.json({ items: channels.map(view) });
  });

  router.post('/channels', async (request, response) => {
    adminUser(request);
    const input = parseOrThrow(createChannelRequestSchema, request.body);
    response.status(201).json(view(await createChannel(context, input)));
  });

  router.patch('/channels/:id', async (request, response) => {
    adminUser(request);
    const input = parseOrThrow(updateChannelRequestSchema, request.body);
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
    response.json(await testChannel(channel, context.keys.encryption, input.model));
  });

  return router;
}
