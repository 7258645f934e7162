/**
 * @module gateway/providers
 * The provider registry: one entry per channel kind, saying how the gateway talks to that kind of
 * upstream. Each entry declares its request writer (neutral request → upstream body), its reply and
 * stream readers (upstream → neutral reply), how a request is addressed and authenticated, the
 * channel test's request, and which client endpoints it serves with which adapter. The relay's
 * endpoints (relay/endpoints.ts) and the channel test read it; a new kind is one entry here.
 */
import type { ChannelType } from '../../contracts/channel-type.ts';
import type { Endpoint } from '../../contracts/events/index.ts';
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import { anthropicProvider } from './anthropic/index.ts';
import { buildAnthropicRequest } from './anthropic/request.ts';
import { writeMessagesRequest } from './anthropic/write-messages-request.ts';
import { anthropicForChatCompletions } from './conversion/anthropic-for-chat-completions.ts';
import { openAIForMessages } from './conversion/openai-for-messages.ts';
import { readAnthropicMessage } from './conversion/read-anthropic-message.ts';
import { AnthropicStreamReader } from './conversion/read-anthropic-stream.ts';
import { readOpenAICompletion } from './conversion/read-openai-completion.ts';
import { OpenAIStreamReader } from './conversion/read-openai-stream.ts';
import type { Reply, ReplyPart } from './conversion/reply.ts';
import { openAIProvider } from './openai/index.ts';
import { buildOpenAIRequest } from './openai/request.ts';
import { writeChatRequest } from './openai/write-chat-request.ts';
import type { BuiltRequest, Provider, RelayInput, SseEvent } from './provider.ts';
import { responsesOnAnthropic, responsesOnOpenAI } from './responses/responses-providers.ts';

export interface StreamReader {
  read(event: SseEvent): ReplyPart[];
  readonly usageRefused?: string | null;
}

export interface ProviderKind {
  /** neutral request → this kind's upstream body, with what it dropped */
  writeRequest(request: NeutralRequest): { body: Record<string, unknown>; warnings: string[] };
  /** a whole upstream reply as the neutral reply */
  readReply(body: unknown): Reply;
  /** a fresh reader of one upstream stream */
  createStreamReader(): StreamReader;
  /** the upstream URL, headers (the channel's key, as this kind authenticates) and body of a request */
  buildRequest(input: RelayInput): BuiltRequest;
  /** the smallest request the channel test sends: one token */
  testRequest(model: string): Record<string, unknown>;
  /** which client endpoints a channel of this kind serves, and the adapter that serves each */
  serves: Partial<Record<Endpoint, Provider>>;
  capabilities: {
    /** thinking comes back with signatures the upstream verifies when it is sent back */
    signedThinking: boolean;
    /** a channel of this kind may serve `/v1/responses` natively (`responses_api: true`) */
    nativeResponses: boolean;
  };
}

const ping = (model: string) => ({ model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });

export const providerKinds: Record<ChannelType, ProviderKind> = {
  openai: {
    writeRequest: (request) => ({ body: writeChatRequest(request) as Record<string, unknown>, warnings: [] }),
    readReply: (body) => readOpenAICompletion(body as Parameters<typeof readOpenAICompletion>[0]),
    createStreamReader: () => new OpenAIStreamReader(),
    buildRequest: buildOpenAIRequest,
    testRequest: ping,
    serves: { 'chat.completions': openAIProvider, messages: openAIForMessages, responses: responsesOnOpenAI },
    capabilities: { signedThinking: false, nativeResponses: true },
  },
  anthropic: {
    writeRequest: (request) => writeMessagesRequest(request),
    readReply: (body) => readAnthropicMessage(body as Parameters<typeof readAnthropicMessage>[0]),
    createStreamReader: () => new AnthropicStreamReader(),
    buildRequest: buildAnthropicRequest,
    testRequest: ping,
    serves: {
      'chat.completions': anthropicForChatCompletions,
      messages: anthropicProvider,
      responses: responsesOnAnthropic,
    },
    capabilities: { signedThinking: true, nativeResponses: false },
  },
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
