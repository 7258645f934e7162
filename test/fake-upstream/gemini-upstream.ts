/**
 * A fake of Google AI Studio's Gemini REST API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`) replaying the `gemini-*` fixtures, with the same controls as the
 * OpenAI/Anthropic fake (server.ts): queued cases, cuts, delays, recorded requests. Like Google, it
 * wants the key in `x-goog-api-key` (a wrong one is Google's 400 API_KEY_INVALID, none its 403) and
 * chooses streaming by the method in the path, never by the body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScenarioOptions } from './choose-fixture.ts';
import { hasFixture, isRecord, type JsonFixture, loadFixture, loadJsonFixture } from './fixtures.ts';
import type { RecordedRequest } from './server.ts';
import { type ReplyTiming, writeJsonReply, writeStreamReply } from './write-reply.ts';

/** Every gemini fixture case: `gemini-<case>` and, where Gemini streams it, `gemini-<case>-stream`. */
export const geminiCases = {
  json: ['text', 'tool-call', 'tool-result-reply', 'thinking', 'error-400', 'error-key', 'error-429', 'error-503'],
  stream: ['text-stream', 'tool-call-stream', 'tool-result-reply-stream', 'thinking-stream', 'midstream-error'],
  /** the answers of `:countTokens` and `:embedContent` (`:batchEmbedContents` repeats the latter per request) */
  methods: ['count-tokens', 'embed-content'],
} as const;

export const geminiFixtureNames = [
  ...geminiCases.json.map((name) => `gemini-${name}`),
  ...geminiCases.stream.map((name) => `gemini-${name}`),
  ...geminiCases.methods.map((name) => `gemini-${name}`),
];

const route =
  /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/;

/** The fixture of a method other than generateContent, built for the request where it depends on it. */
function methodReply(method: string, body: Record<string, unknown>): JsonFixture | null {
  if (method === 'countTokens') return loadJsonFixture('gemini-count-tokens');
  const embedded = loadJsonFixture('gemini-embed-content');
  if (method === 'embedContent') return embedded;
  if (method !== 'batchEmbedContents') return null;
  const requests = Array.isArray(body.requests) ? body.requests : [];
  const embedding = (embedded.body as { embedding: unknown }).embedding;
  return { ...embedded, name: 'gemini-batch-embed-contents', body: { embeddings: requests.map(() => embedding) } };
}

export interface GeminiUpstream {
  url: string;
  requests: Array<RecordedRequest & { model: string; streamed: boolean; query: string }>;
  next(scenario: string | ScenarioOptions): void;
  reset(): void;
  close(): Promise<void>;
}

function googleError(status: number, code: string, message: string): JsonFixture {
  return {
    kind: 'json',
    name: 'gemini-built',
    status,
    headers: {},
    body: { error: { code: status, message, status: code } },
  };
}

/** What a real model would most plausibly answer: a tool result gets its reply, tools a call. */
function defaultCase(body: Record<string, unknown>): string {
  const contents = Array.isArray(body.contents) ? body.contents.filter(isRecord) : [];
  const parts = (content: Record<string, unknown> | undefined) =>
    Array.isArray(content?.parts) ? content.parts.filter(isRecord) : [];
  if (parts(contents.at(-1)).some((part) => isRecord(part.functionResponse))) return 'tool-result-reply';
  if (Array.isArray(body.tools) && body.tools.length > 0) return 'tool-call';
  const thinking = isRecord(body.generationConfig) && isRecord(body.generationConfig.thinkingConfig);
  return thinking ? 'thinking' : 'text';
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startGeminiUpstream(options: { apiKey?: string } = {}): Promise<GeminiUpstream> {
  const requests: GeminiUpstream['requests'] = [];
  const queue: ScenarioOptions[] = [];
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const closed = new AbortController();
    response.on('close', () => closed.abort());
    const url = new URL(request.url ?? '/', 'http://gemini-fake');
    const text = await readBody(request);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text || undefined;
    }
    const match = route.exec(url.pathname);
    const streamed = match?.[2] === 'streamGenerateContent';
    requests.push({
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      search: url.search,
      headers: { ...request.headers },
      body,
      model: decodeURIComponent(match?.[1] ?? ''),
      streamed,
    });
    const reply = (fixture: JsonFixture, timing: ReplyTiming = { chunkDelayMs: 0 }) =>
      writeJsonReply(response, fixture, {}, timing, closed.signal);
    if (!match || request.method !== 'POST') return reply(googleError(404, 'NOT_FOUND', `Not found: ${url.pathname}`));
    const key = request.headers['x-goog-api-key'];
    if (!key) return reply(googleError(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers."));
    if (options.apiKey !== undefined && key !== options.apiKey) return reply(loadJsonFixture('gemini-error-key'));
    if (!isRecord(body)) return reply(googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
    const method = match[2]!;
    const queued = queue[0];
    if (!streamed && method !== 'generateContent' && !queued?.fixture.startsWith('error')) {
      const answer = methodReply(method, body);
      if (answer) return reply(answer);
    }
    const scenario = queue.shift() ?? { fixture: defaultCase(body) };
    const timing: ReplyTiming = {
      chunkDelayMs: scenario.chunkDelayMs ?? 0,
      cutAfterChunks: scenario.cutAfterChunks,
      delayFirstByteMs: scenario.delayFirstByteMs,
      hang: scenario.hang,
      status: scenario.status,
    };
    const base = `gemini-${scenario.fixture}`;
    const name = streamed && hasFixture(`${base}-stream`) ? `${base}-stream` : base;
    const fixture = loadFixture(name);
    if (fixture.kind === 'json') return reply(fixture, timing);
    // Google separates its SSE events with CRLF pairs.
    const frames = fixture.chunks.map((chunk) => `data: ${chunk}\r\n\r\n`);
    return writeStreamReply(response, frames, {}, timing, closed.signal, scenario.contentType);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error('gemini fake failed:', error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`gemini fake failed: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    next(scenario) {
      const options = typeof scenario === 'string' ? { fixture: scenario } : scenario;
      if (!hasFixture(`gemini-${options.fixture}`) && !hasFixture(`gemini-${options.fixture}-stream`))
        throw new Error(`Gemini fake: no fixture case "${options.fixture}"`);
      queue.push(options);
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
