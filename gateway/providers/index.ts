/**
 * @module gateway/providers
 * The provider registry: for each channel kind, what it brings to the neutral core (kinds.ts: its
 * request writer, reply and stream readers, addressing and auth, test request, capabilities, the
 * endpoints of its own format it relays as they are) and which client endpoints it serves with which
 * adapter. `serves` is derived, so every kind serves every ingress format: its pass-through adapters
 * where it declares them, else the generic converting adapters. The relay's endpoints
 * (relay/endpoints.ts) and the channel test read it.
 */
import type { ChannelType } from '../../contracts/channel-type.ts';
import type { Endpoint } from '../../contracts/events/index.ts';
import { chatCompletionsOn } from './chat-completions/chat-completions-providers.ts';
import { generateContentOn } from './gemini-ingress/generate-providers.ts';
import { type UpstreamKind, upstreamKinds } from './kinds.ts';
import { messagesOn } from './messages/messages-providers.ts';
import { openAIResponsesCompactNative } from './openai/responses-compact-native.ts';
import type { Provider } from './provider.ts';
import { compactOn, responsesOn } from './responses/responses-providers.ts';

export type { StreamReader, UpstreamKind, WrittenRequest } from './kinds.ts';

/** The client endpoints every kind serves through the neutral core. */
export type IngressEndpoint = 'chat.completions' | 'messages' | 'responses' | 'gemini.generateContent';

export interface ProviderKind extends UpstreamKind {
  /** which client endpoints a channel of this kind serves, and the adapter that serves each */
  serves: Partial<Record<Endpoint, Provider>>;
}

/** What a channel of `kind` serves: its pass-through adapters, the generic ones for every other ingress. */
export function servesOf(
  type: ChannelType,
  kind: UpstreamKind,
): Record<IngressEndpoint, Provider> & ProviderKind['serves'] {
  const target = kind.label ?? type;
  return {
    'chat.completions': chatCompletionsOn(kind, target),
    messages: messagesOn(kind, target),
    responses: responsesOn(type),
    'gemini.generateContent': generateContentOn(kind, target),
    // Compacts as is where the channel is OpenAI's own Responses API, else with the gateway's summarising call.
    'responses.compact': compactOn(type, openAIResponsesCompactNative),
    ...kind.passThrough,
  };
}

export const providerKinds = Object.fromEntries(
  Object.entries(upstreamKinds).map(([type, kind]) => [type, { ...kind, serves: servesOf(type as ChannelType, kind) }]),
) as Record<ChannelType, ProviderKind>;

/** The adapter of each channel kind that serves a client endpoint. */
export function providersFor(endpoint: Endpoint): Partial<Record<ChannelType, Provider>> {
  const providers: Partial<Record<ChannelType, Provider>> = {};
  for (const [type, kind] of Object.entries(providerKinds) as Array<[ChannelType, ProviderKind]>) {
    const provider = kind.serves[endpoint];
    if (provider) providers[type] = provider;
  }
  return providers;
}
