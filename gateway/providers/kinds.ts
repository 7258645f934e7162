/**
 * @module gateway/providers/kinds
 * What each channel kind brings to the neutral core: its request writer (neutral request → upstream
 * body), its reply and stream readers (upstream → neutral reply), how a request to it is addressed
 * and authenticated, the channel test's request, and its capabilities. The registry
 * (gateway/providers/index.ts) derives which client endpoints each kind serves; the generic adapters
 * (chat-completions/, messages/, responses/) read only this, so a new kind is one entry here.
 */
import type { ChannelType } from '../../contracts/channel-type.ts';
import type { Endpoint } from '../../contracts/events/index.ts';
import type { NeutralRequest } from '../../contracts/neutral/request.ts';
import { anthropicProvider } from './anthropic/index.ts';
import { buildAnthropicRequest } from './anthropic/request.ts';
import { writeMessagesRequest } from './anthropic/write-messages-request.ts';
import { azureKind } from './azure/kind.ts';
import { readConverseReply } from './bedrock/read-converse-reply.ts';
import { ConverseStreamReader } from './bedrock/read-converse-stream.ts';
import { bedrockTestRequest, buildBedrockRequest } from './bedrock/request.ts';
import { writeConverseRequest } from './bedrock/write-converse-request.ts';
import { readAnthropicMessage } from './conversion/read-anthropic-message.ts';
import { AnthropicStreamReader } from './conversion/read-anthropic-stream.ts';
import { readOpenAICompletion } from './conversion/read-openai-completion.ts';
import { OpenAIStreamReader } from './conversion/read-openai-stream.ts';
import type { Reply, ReplyPart } from './conversion/reply.ts';
import { geminiKind } from './gemini/kind.ts';
import { openAIProvider } from './openai/index.ts';
import { buildOpenAIRequest } from './openai/request.ts';
import { writeChatRequest } from './openai/write-chat-request.ts';
import type { BuiltRequest, Provider, RelayInput, SseEvent } from './provider.ts';

/**
 * How a kind's upstream frames a streamed reply: server-sent events, or AWS's binary event stream
 * (Bedrock), which the relay decodes into the same events for the kind's stream reader.
 */
export type StreamFraming = 'sse' | 'aws-event-stream';

export interface StreamReader {
  read(event: SseEvent): ReplyPart[];
  readonly usageRefused?: string | null;
}

export interface WrittenRequest {
  body: Record<string, unknown>;
  /** what the writer dropped or changed, one short sentence each */
  warnings: string[];
  /** the tool the response format became (Anthropic), whose call the reply turns into its content */
  answerTool: string | null;
}

export interface UpstreamKind {
  /** how warnings name the kind ("seed dropped: no Anthropic equivalent"); default: the channel type */
  label?: string;
  /**
   * Client endpoints of the kind's own format, relayed as they are (no neutral round trip: the hot
   * path). Every other endpoint is served by a generic converting adapter (index.ts).
   */
  passThrough?: Partial<Record<Endpoint, Provider>>;
  writeRequest(request: NeutralRequest): WrittenRequest;
  /** a whole upstream reply as the neutral reply */
  readReply(body: unknown): Reply;
  /** a fresh reader of one upstream stream */
  createStreamReader(): StreamReader;
  /** the upstream URL, headers (the channel's key, as this kind authenticates) and body of a request */
  buildRequest(input: RelayInput): BuiltRequest;
  /** the smallest request the channel test sends: one token */
  testRequest(model: string): Record<string, unknown>;
  capabilities: {
    /** thinking comes back with signatures the upstream verifies when it is sent back */
    signedThinking: boolean;
    /** a channel of this kind may serve `/v1/responses` natively (`responses_api: true`) */
    nativeResponses: boolean;
    /**
     * such a channel is OpenAI's own Responses API, which also compacts (`compaction_trigger`,
     * `/v1/responses/compact`) and counts input tokens (`/v1/responses/input_tokens`); elsewhere the
     * gateway compacts with a summarising call through the neutral core (responses/compaction.ts)
     * and counts with its tokenizer
     */
    nativeCompaction?: boolean;
    /**
     * its writer places system turns where they are in the conversation (OpenAI's system messages);
     * without it they are moved to the system prompt before the writer sees them, with a warning
     */
    systemTurns?: boolean;
    /** how its streamed replies are framed; absent means server-sent events */
    streamFraming?: StreamFraming;
    /**
     * its streams always come typed `text/event-stream`: any other type, `text/plain` included, is
     * a page of something in front of it (a proxy, a portal) and is refused before the client's first
     * byte, so that the next channel answers. Without it `text/plain` is read as SSE, as some
     * OpenAI-compatible servers label their streams so.
     */
    eventStreamTypeOnly?: boolean;
  };
}

const ping = (model: string) => ({ model, max_tokens: 1, messages: [{ role: 'user', content: 'ping' }] });

export const upstreamKinds: Record<ChannelType, UpstreamKind> = {
  openai: {
    label: 'OpenAI',
    passThrough: { 'chat.completions': openAIProvider },
    writeRequest(request) {
      const warnings: string[] = [];
      return { body: writeChatRequest(request, warnings), warnings, answerTool: null };
    },
    readReply: (body) => readOpenAICompletion(body as Parameters<typeof readOpenAICompletion>[0]),
    createStreamReader: () => new OpenAIStreamReader(),
    buildRequest: buildOpenAIRequest,
    testRequest: ping,
    capabilities: { signedThinking: false, nativeResponses: true, nativeCompaction: true, systemTurns: true },
  },
  anthropic: {
    label: 'Anthropic',
    passThrough: { messages: anthropicProvider },
    writeRequest: writeMessagesRequest,
    readReply: (body) => readAnthropicMessage(body as Parameters<typeof readAnthropicMessage>[0]),
    createStreamReader: () => new AnthropicStreamReader(),
    buildRequest: buildAnthropicRequest,
    testRequest: ping,
    capabilities: { signedThinking: true, nativeResponses: false },
  },
  azure: azureKind,
  gemini: geminiKind,
  bedrock: {
    label: 'Bedrock',
    writeRequest: writeConverseRequest,
    readReply: readConverseReply,
    createStreamReader: () => new ConverseStreamReader(),
    buildRequest: buildBedrockRequest,
    testRequest: bedrockTestRequest,
    capabilities: { signedThinking: true, nativeResponses: false, streamFraming: 'aws-event-stream' },
  },
};
