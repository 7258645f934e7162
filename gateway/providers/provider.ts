/**
 * @module gateway/providers/provider
 * What an upstream kind supplies to the relay: a pure request builder, the usage of a whole response,
 * and a per-request stream relay that turns each upstream SSE event into what the client receives.
 */

import type { TokenCounts } from '../../contracts/neutral/usage.ts';
import type { Route, UpstreamRequest } from './upstream-route.ts';
import type { UsageRefusalNote } from './usage-check.ts';

/** Token accounting in OpenAI semantics (contracts/neutral/usage.ts). */
export type { TokenCounts } from '../../contracts/neutral/usage.ts';

export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/** `usageRefused`: why the upstream's usage was not believed, when it was not (usage-check.ts). */
export interface StreamOutcome extends UsageRefusalNote {
  usage: TokenCounts | null;
  /** the model the upstream named */
  model: string | null;
  /** an error the upstream reported in-band, after the 200 */
  error: { type: string; message: string } | null;
  /** the generated text, kept for a tokenizer estimate when the upstream sends no usage */
  completionText: string;
  /**
   * the generated tokens, counted with the tokenizer as a stream went (conversion/completion-token-counter.ts):
   * a stream's relay keeps no text, which could be as long as the stream itself, and leaves `completionText` empty
   */
  completionTokens?: number;
}

export interface StreamRelay {
  /** What to write to the client for this upstream event; '' writes nothing. */
  onEvent(event: SseEvent): string;
  /** True once the client has been sent generated content (time to first token). */
  readonly sawContent: boolean;
  outcome(): StreamOutcome;
}

export interface RelayInput {
  route: Route;
  body: Record<string, unknown>;
  stream: boolean;
  clientHeaders: Record<string, string | string[] | undefined>;
  /**
   * The client's query string with its `?` (`?beta=true`, which Anthropic's SDK adds to beta calls), or
   * ''. A channel of the client's own format receives it as sent; a converted one never sees it.
   */
  clientQuery?: string;
  /**
   * The client's body as sent (`text`) and the object it parsed to (`body`). While `input.body` is that
   * very object, a builder of the client's own format sends the text on with only the members it must
   * change written in place (json-members.ts, clientTextOf); a converted or expanded body is another
   * object, and is serialised.
   */
  client?: { body: Record<string, unknown>; text: string };
}

/** The client's own text for `input.body`, when the body is still exactly what that text parsed to. */
export function clientTextOf(input: RelayInput): string | undefined {
  return input.client !== undefined && input.client.body === input.body ? input.client.text : undefined;
}

export interface BuiltRequest {
  upstream: UpstreamRequest;
  /** the client did not ask for the usage chunk the gateway requested for its own accounting */
  hideUsageChunk: boolean;
}

export interface ResponseReading extends UsageRefusalNote {
  usage: TokenCounts | null;
  model: string | null;
  completionText: string;
  /**
   * The body to send the client instead of the upstream's bytes: set by converting adapters. A
   * same-format relay leaves it out and the upstream's bytes go through untouched.
   */
  clientBody?: unknown;
}

export interface Provider {
  buildRequest(input: RelayInput): BuiltRequest;
  /** Usage and model of a complete (non-streamed) response body, and what the client receives. */
  readResponse(body: unknown, input: RelayInput): ResponseReading;
  createStreamRelay(options: { hideUsageChunk: boolean; input: RelayInput }): StreamRelay;
}
