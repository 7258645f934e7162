/**
 * Decides which fixture answers a request: the queued scenario if any, else a default read from the
 * request body, then the streamed or JSON variant depending on `body.stream`.
 */
import { azureCaseExists, azureProviderForPath, isAzureEmbeddingsPath, openAICounterpart } from './azure-routes.ts';
import { hasFixture, isRecord, type Provider } from './fixtures.ts';

export interface ScenarioOptions {
  /** Fixture case name without the provider prefix, e.g. `tool-call` or `error-429`. */
  fixture: string;
  chunkDelayMs?: number;
  /** Destroy the socket after this many chunks (the JSON body counts as one chunk). */
  cutAfterChunks?: number;
  /** Replaces the fixture's HTTP status. */
  status?: number;
  delayFirstByteMs?: number;
  /** Send the stream's head at once, then wait this long before its first chunk (a model thinking). */
  delayFirstChunkMs?: number;
  /** Never answer; the socket stays open until the client gives up or the fake is closed. */
  hang?: boolean;
  /** A stream's content type instead of `text/event-stream` (a proxy's page in front of the provider). */
  contentType?: string;
  /** Embeddings: answer in this encoding whatever the request asked (servers that ignore `encoding_format`). */
  embeddingEncoding?: 'float' | 'base64';
}

export type Scenario = string | ScenarioOptions;

const streamSuffix = '-stream';

export function providerForPath(path: string): Provider | undefined {
  if (path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages' || path === '/v1/messages/count_tokens') return 'anthropic';
  if (path === '/v1/responses' || path === '/v1/responses/compact' || path === '/v1/responses/input_tokens') {
    return 'openai-responses';
  }
  if (path === '/v1/embeddings') return 'openai';
  return azureProviderForPath(path);
}

/** The endpoints answered by one case whatever the body: embeddings, token counting and compaction. */
export function defaultCaseOfPath(path: string): string | undefined {
  if (path === '/v1/embeddings' || isAzureEmbeddingsPath(path)) return 'embeddings';
  if (path === '/v1/messages/count_tokens') return 'count-tokens';
  if (path === '/v1/responses/compact') return 'compact';
  if (path === '/v1/responses/input_tokens') return 'input-tokens';
  return undefined;
}

export function toScenarioOptions(scenario: Scenario): ScenarioOptions {
  return typeof scenario === 'string' ? { fixture: scenario } : scenario;
}

/** Throws at `next()` time for a case no provider has, so a typo fails the test that made it. */
export function assertCaseExists(caseName: string): void {
  const exists = (['openai', 'anthropic', 'openai-responses'] as const).some(
    (provider) => hasFixture(`${provider}-${caseName}`) || hasFixture(`${provider}-${caseName}${streamSuffix}`),
  );
  if (!exists && !azureCaseExists(caseName))
    throw new Error(`Fake upstream: no fixture case "${caseName}" for any provider`);
}

/**
 * The fixture file name for a case: a streamed request prefers `<provider>-<case>-stream`, and falls back
 * to `<provider>-<case>` (errors and `image` only exist as JSON, as real providers answer errors before streaming).
 */
export function resolveFixtureName(provider: Provider, caseName: string, streaming: boolean): string | undefined {
  const base = `${provider}-${caseName}`;
  const candidates = streaming && !caseName.endsWith(streamSuffix) ? [`${base}${streamSuffix}`, base] : [base];
  const counterpart = openAICounterpart(provider);
  // Azure answers most cases as OpenAI does: its own recording first, else OpenAI's.
  return candidates.find(hasFixture) ?? (counterpart && resolveFixtureName(counterpart, caseName, streaming));
}

export function isStreamingRequest(body: unknown): boolean {
  return isRecord(body) && body.stream === true;
}

/** OpenAI sends the usage-only chunk (and `usage` keys at all) only when the client asked for it. */
export function wantsStreamUsage(body: unknown): boolean {
  return isRecord(body) && isRecord(body.stream_options) && body.stream_options.include_usage === true;
}

/** The case a real model would most plausibly answer with, so most tests need no `next()` at all. */
export function defaultCase(provider: Provider, body: unknown): string {
  const request = isRecord(body) ? body : {};
  // Codex's remote compaction: a Responses request whose last input item asks for a compaction item.
  if (
    Array.isArray(request.input) &&
    request.input.some((item) => isRecord(item) && item.type === 'compaction_trigger')
  ) {
    return 'compaction';
  }
  const messages = Array.isArray(request.messages) ? request.messages.filter(isRecord) : [];
  const lastMessage = messages.at(-1);
  if (lastMessage && isToolResult(provider, lastMessage)) return 'tool-result-reply';
  if (Array.isArray(request.tools) && request.tools.length > 0) return 'tool-call';
  if (messages.some((message) => hasImage(provider, message))) return 'image';
  return 'text';
}

function contentParts(message: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

function isToolResult(provider: Provider, message: Record<string, unknown>): boolean {
  if (provider === 'openai' || provider === 'azure') return message.role === 'tool' || message.role === 'function';
  return message.role === 'user' && contentParts(message).some((part) => part.type === 'tool_result');
}

function hasImage(provider: Provider, message: Record<string, unknown>): boolean {
  const imageType = provider === 'openai' || provider === 'azure' ? 'image_url' : 'image';
  return contentParts(message).some((part) => part.type === imageType);
}
