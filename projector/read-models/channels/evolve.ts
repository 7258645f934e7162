/**
 * @module projector/read-models/channels
 * The channel table every gateway node routes with. The upstream key stays encrypted here; only the
 * relay decrypts it, in memory, when it builds the upstream request.
 */
import type { ChannelSource, ChannelType, EventOfType, GatewayEvent } from '../../../contracts/events/index.ts';

export interface ChannelDocument {
  channelId: string;
  name: string;
  type: ChannelType;
  baseUrl: string;
  apiKeyCiphertext: string;
  models: string[];
  modelMapping: Record<string, string>;
  priority: number;
  weight: number;
  thinkingToContent: boolean;
  enabled: boolean;
  /** every upstream key, encrypted, used in turn; absent on channels with one key (`apiKeyCiphertext`) */
  apiKeyCiphertexts?: string[];
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** absent on channels configured before sources were recorded: the console's */
  source?: ChannelSource;
  /** an OpenAI-kind channel that serves `/v1/responses` itself */
  responsesApi?: boolean;
  /** an azure channel's `api-version`; absent means the gateway's default */
  apiVersion?: string;
  /** a bedrock channel's AWS region */
  region?: string;
  updatedAt: string;
}

export const collection = 'channels';

type ChannelEvent = EventOfType<'channel.configured' | 'channel.removed'>;

export function canHandle(event: GatewayEvent): event is ChannelEvent {
  return event.type === 'channel.configured' || event.type === 'channel.removed';
}

export function documentIdOf(event: ChannelEvent): string {
  return event.body.channelId;
}

export function evolve(_document: ChannelDocument | null, event: ChannelEvent): ChannelDocument | null {
  if (event.type === 'channel.removed') return null;
  return { ...event.body, updatedAt: event.occurredAt };
}
