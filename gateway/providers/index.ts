/**
 * @module gateway/providers
 * The provider registry: for each channel kind, what it brings to the neutral core (kinds.ts: its
 * request writer, reply and stream readers, addressing and auth, test request, capabilities) and
 * which client endpoints it serves with which adapter. The relay's endpoints (relay/endpoints.ts)
 * and the channel test read it.
 */
import type { ChannelType } from '../../contracts/channel-type.ts';
import type { Endpoint } from '../../contracts/events/index.ts';
import { anthropicProvider } from './anthropic/index.ts';
import { anthropicForChatCompletions } from './conversion/anthropic-for-chat-completions.ts';
import { openAIForMessages } from './conversion/openai-for-messages.ts';
import { type UpstreamKind, upstreamKinds } from './kinds.ts';
import { openAIProvider } from './openai/index.ts';
import type { Provider } from './provider.ts';
import { responsesOn } from './responses/responses-providers.ts';

export type { StreamReader, UpstreamKind, WrittenRequest } from './kinds.ts';

export interface ProviderKind extends UpstreamKind {
  /** which client endpoints a channel of this kind serves, and the adapter that serves each */
  serves: Partial<Record<Endpoint, Provider>>;
}

export const providerKinds: Record<ChannelType, ProviderKind> = {
  openai: {
    ...upstreamKinds.openai,
    serves: { 'chat.completions': openAIProvider, messages: openAIForMessages, responses: responsesOn('openai') },
  },
  anthropic: {
    ...upstreamKinds.anthropic,
    serves: {
      'chat.completions': anthropicForChatCompletions,
      messages: anthropicProvider,
      responses: responsesOn('anthropic'),
    },
  },
  bedrock: { ...upstreamKinds.bedrock, serves: { responses: responsesOn('bedrock') } },
};

/** The adapter of each channel kind that serves a client endpoint. */
export function providersFor(endpoint: Endpoint): Partial<Record<ChannelType, Provider>> {
  const providers: Partial<Record<ChannelType, Provider>> = {};
  for (const [type, kind] of Object.entries(providerKinds) as Array<[ChannelType, ProviderKind]>) {
    const provider = kind.serves[endpoint];
    if (provider) providers[type] = provider;
  }
  return providers;
}
