/**
 * A fake upstream LLM provider for integration tests and benchmarks: a `node:http` server speaking the
 * OpenAI Chat Completions and Embeddings APIs and the Anthropic Messages API (with token counting) by
 * replaying the fixtures in `__fixtures__/`.
 *
 * @example
 * const upstream = await startFakeUpstream();
 * upstream.next('error-429'); // the next request gets a 429, later ones the default reply
 * const openai = new OpenAI({ baseURL: `${upstream.url}/v1`, apiKey: 'test' });
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { azureAuthenticationFailure } from './azure-routes.ts';
import {
  assertCaseExists,
  defaultCase,
  defaultCaseOfPath,
  isStreamingRequest,
  providerForPath,
  resolveFixtureName,
  type Scenario,
  type ScenarioOptions,
  toScenarioOptions,
  wantsStreamUsage,
} from './choose-fixture.ts';
import { withEmbeddings } from './embeddings-reply.ts';
import { isRecord, type JsonFixture, loadFixture, loadJsonFixture, type Provider } from './fixtures.ts';
import {
  authenticationError,
  malformedBodyError,
  missingFixtureError,
  missingVersionError,
  notFoundError,
  requestIdHeader,
} from './provider-errors.ts';
import { type ReplyTiming, streamFrames, writeJsonReply, writeStreamReply } from './write-reply.ts';

export type { Scenario, ScenarioOptions } from './choose-fixture.ts';

export interface RecordedRequest {
  method: string;
  /** The path without its query string, e.g. `/v1/messages`. */
  path: string;
  /** The query string with its `?`, or '' (Azure's `?api-version=…`). */
  search: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
}

export interface FakeUpstreamOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Pause between stream chunks, unless a scenario sets its own. */
  chunkDelayMs?: number;
  /** The only upstream key accepted; by default any non-empty key is. */
  apiKey?: string;
}

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>`: OpenAI clients take `${url}/v1` as base URL, Anthropic clients `url`. */
  url: string;
  requests: RecordedRequest[];
  /** Queues the reply for the next accepted request (FIFO); the default choice applies when empty. */
  next(scenario: Scenario): void;
  reset(): void;
  close(): Promise<void>;
}

interface ServerState {
  options: FakeUpstreamOptions;
  requests: RecordedRequest[];
  queue: ScenarioOptions[];
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const state: ServerState = { options, requests: [], queue: [] };
  const server = createServer((request, response) => {
    handleRequest(state, request, response).catch((error: unknown) => {
      // A broken fixture or a bug here must fail the test loudly, not look like an upstream reply.
      console.error('fake upstream failed:', error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`fake upstream failed: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    next(scenario) {
      const scenarioOptions = toScenarioOptions(scenario);
      assertCaseExists(scenarioOptions.fixture);
      state.queue.push(scenarioOptions);
    },
    reset() {
      // Emptied in place so a reference to `requests` taken earlier stays live.
      state.queue.length = 0;
      state.requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging and keep-alive connections would otherwise hold `close` open forever.
        server.closeAllConnections();
      }),
  };
}

async function handleRequest(state: ServerState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const closed = new AbortController();
  response.on('close', () => closed.abort());
  const method = request.method ?? 'GET';
  const { pathname: path, search, searchParams } = new URL(request.url ?? '/', 'http://fake-upstream');
  const rawBody = await readBody(request);
  const body = parseBody(rawBody);
  state.requests.push({
    method,
    path,
    search,
    headers: { ...request.headers },
    body: body.parsed ? body.value : rawBody || undefined,
  });

  const provider = providerForPath(path);
  const replyJson = (fixture: JsonFixture, onBehalfOf: Provider, timing: ReplyTiming = { chunkDelayMs: 0 }) =>
    writeJsonReply(response, fixture, requestIdHeader(onBehalfOf), timing, closed.signal);

  if (method === 'GET' && path === '/v1/models') {
    return replyJson(
      authenticationFailure('openai', request.headers, state.options.apiKey) ?? loadJsonFixture('openai-models'),
      'openai',
    );
  }
  if (!provider || method !== 'POST') {
    const shape = provider ?? (path.startsWith('/v1/messages') ? 'anthropic' : 'openai');
    return replyJson(notFoundError(shape, method, path), shape);
  }
  const rejection =
    provider === 'azure' || provider === 'azure-responses'
      ? azureAuthenticationFailure(provider, request.headers, searchParams, state.options.apiKey)
      : authenticationFailure(provider, request.headers, state.options.apiKey);
  if (rejection) return replyJson(rejection, provider);
  if (!body.parsed || !isRecord(body.value)) return replyJson(malformedBodyError(provider), provider);

  const scenario = state.queue.shift() ?? { fixture: defaultCaseOfPath(path) ?? defaultCase(provider, body.value) };
  const name = resolveFixtureName(provider, scenario.fixture, isStreamingRequest(body.value));
  if (!name) return replyJson(missingFixtureError(provider, `case "${scenario.fixture}"`), provider);
  const timing: ReplyTiming = {
    chunkDelayMs: scenario.chunkDelayMs ?? state.options.chunkDelayMs ?? 0,
    cutAfterChunks: scenario.cutAfterChunks,
    delayFirstByteMs: scenario.delayFirstByteMs,
    delayFirstChunkMs: scenario.delayFirstChunkMs,
    hang: scenario.hang,
    status: scenario.status,
  };
  const fixture = loadFixture(name);
  if (fixture.kind === 'json' && defaultCaseOfPath(path) === 'embeddings') {
    return replyJson(withEmbeddings(fixture, body.value, scenario.embeddingEncoding), provider, timing);
  }
  if (fixture.kind === 'json') return replyJson(fixture, provider, timing);
  const frames = streamFrames(provider, fixture, wantsStreamUsage(body.value));
  return writeStreamReply(response, frames, requestIdHeader(provider), timing, closed.signal, scenario.contentType);
}

/**
 * Mirrors the real checks so tests can prove the gateway sends the upstream key the way each provider wants it.
 * Anthropic takes `x-api-key` or `Authorization: Bearer` (the SDK from 1.x sends the latter); which one the
 * gateway used is visible in `requests[].headers`.
 */
function authenticationFailure(
  provider: Provider,
  headers: IncomingHttpHeaders,
  acceptedKey: string | undefined,
): JsonFixture | undefined {
  const accepts = (key: string | undefined) => Boolean(key) && (acceptedKey === undefined || key === acceptedKey);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (provider !== 'anthropic') return accepts(bearer) ? undefined : authenticationError(provider);
  if (!accepts(firstValue(headers['x-api-key']) ?? bearer)) return authenticationError('anthropic');
  if (!firstValue(headers['anthropic-version'])) return missingVersionError();
  return undefined;
}

function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseBody(text: string): { parsed: true; value: unknown } | { parsed: false } {
  try {
    return { parsed: true, value: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false };
  }
}
