/**
 * @module gateway/providers/upstream-route
 * What the relay hands a provider: the channel a request was routed to, with the model name to send,
 * and what a provider hands back to send upstream. Declared here, below both, so that providers and
 * converters import nothing from the relay (the relay's modules re-export these types).
 */
import type { ChannelType } from '../../contracts/channel-type.ts';

export interface RoutableChannel {
  channelId: string;
  name: string;
  type: ChannelType;
  baseUrl: string;
  /** the first upstream key (what a one-key channel always uses) */
  apiKey: string;
  /** every upstream key, used in turn (absent: `apiKey` only) */
  apiKeys?: string[];
  /** round-robin position over `apiKeys` (this node's) */
  keyCursor?: number;
  connectTimeoutMs?: number | undefined;
  firstByteTimeoutMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  /** connect only to public addresses (a channel entered in the console, unless private ones are allowed) */
  publicOnly?: boolean;
  priority: number;
  weight: number;
  modelMapping: Record<string, string>;
  thinkingToContent: boolean;
  /** an OpenAI-kind channel that serves `/v1/responses` itself: Responses requests go to it as they are */
  responsesApi?: boolean;
  /** an azure channel's `api-version`; absent means the default (contracts/azure/channel-settings.ts) */
  apiVersion?: string;
  /** a bedrock channel's AWS region, which SigV4 signs with */
  region?: string;
}

export interface Route {
  channel: RoutableChannel;
  /** the model name sent upstream, after the channel's mapping */
  upstreamModel: string;
}

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * A request that must be signed as it leaves (AWS SigV4, whose signature holds the time): resolves
   * to the headers to send instead of `headers`. Absent on every other kind, which pay nothing for it.
   */
  signHeaders?: () => Promise<Record<string, string>>;
}
