/**
 * @module bench/fake-upstream
 * The benchmark's upstream: as fast as node:http allows. Every reply is a prebuilt Buffer; the request
 * body is read but never parsed (a regex tells a streamed request from a plain one). Serves OpenAI
 * (`POST …/chat/completions`), Anthropic (`POST …/messages`) and Gemini (`POST …/models/{model}:generateContent`,
 * `:streamGenerateContent`, which streams) under any path prefix, so each peer can be pointed at it
 * however it builds its URLs.
 *
 * Streams send the first token with the response head, then one token every `delayMs`; the finish,
 * usage and end frames follow the last token in the same write. `POST /__bench/config` with
 * `{"chunks": n, "delayMs": ms}` changes the stream shape for every following request.
 *
 * Run as a child (`node --import tsx bench/fake-upstream.ts`): listens on 127.0.0.1, port 0, and sends
 * `{ port }` over IPC.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMain } from './processes.ts';

export interface StreamShape {
  /** content chunks in a streamed reply */
  chunks: number;
  /** delay between two content chunks */
  delayMs: number;
}

/** The text of token i: the load generator finds tokens by the `Tk` marker. */
export const TOKEN_MARKER = 'Tk';
const tokenText = (index: number) => `${TOKEN_MARKER}${index} `;

const CREATED = 1760091412;
const openaiUsage = {
  prompt_tokens: 21,
  completion_tokens: 10,
  total_tokens: 31,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
};

const openaiJson = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000000000',
    object: 'chat.completion',
    created: CREATED,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: openaiUsage,
    service_tier: 'default',
    system_fingerprint: 'fp_bench',
  }),
);

const anthropicJson = Buffer.from(
  JSON.stringify({
    model: 'claude-sonnet-4-5-20250929',
    id: 'msg_01BenchBenchBenchBench00',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 12 },
  }),
);

const geminiUsage = { promptTokenCount: 14, candidatesTokenCount: 12, totalTokenCount: 26 };
const geminiCandidate = (text: string, finishReason?: string) => ({
  content: { parts: [{ text }], role: 'model' },
  ...(finishReason ? { finishReason } : {}),
  index: 0,
});
const geminiJson = Buffer.from(
  JSON.stringify({
    candidates: [geminiCandidate('Hello! How can I help you today?', 'STOP')],
    usageMetadata: geminiUsage,
    modelVersion: 'gemini-2.5-flash',
  }),
);

interface StreamFrames {
  /** sent with the head: the opening frames and token 0 */
  first: Buffer;
  /** tokens 1..n-1, one Buffer each */
  tokens: Buffer[];
  /** sent right after the last token */
  last: Buffer;
  /** `last` for a client that asked for the usage chunk (OpenAI `stream_options.include_usage`) */
  lastWithUsage: Buffer;
}

const openaiFrame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

function openaiFrames(chunks: number): StreamFrames {
  const base = {
    id: 'chatcmpl-bench0000000000000000000000001',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_bench',
  };
  const delta = (content: Record<string, unknown>, finish: string | null = null) =>
    openaiFrame({ ...base, choices: [{ index: 0, delta: content, logprobs: null, finish_reason: finish }] });
  const tokens = Array.from({ length: chunks }, (_, index) => Buffer.from(delta({ content: tokenText(index) })));
  const finish = delta({}, 'stop');
  const usage = openaiFrame({ ...base, choices: [], usage: { ...openaiUsage, completion_tokens: chunks } });
  return {
    first: Buffer.concat([Buffer.from(delta({ role: 'assistant', content: '' })), tokens[0]!]),
    tokens: tokens.slice(1),
    last: Buffer.from(`${finish}data: [DONE]\n\n`),
    lastWithUsage: Buffer.from(`${finish}${usage}data: [DONE]\n\n`),
  };
}

const anthropicFrame = (payload: { type: string }) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;

function anthropicFrames(chunks: number): StreamFrames {
  const tokens = Array.from({ length: chunks }, (_, index) =>
    Buffer.from(
      anthropicFrame({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: tokenText(index) },
      } as {
        type: string;
      }),
    ),
  );
  const start = anthropicFrame({
    type: 'message_start',
    message: {
      model: 'claude-sonnet-4-5-20250929',
      id: 'msg_01BenchBenchBenchBench01',
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  } as { type: string });
  const blockStart = anthropicFrame({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  } as {
    type: string;
  });
  const last = Buffer.from(
    anthropicFrame({ type: 'content_block_stop', index: 0 } as { type: string }) +
      anthropicFrame({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: chunks },
      } as { type: string }) +
      anthropicFrame({ type: 'message_stop' }),
  );
  return {
    first: Buffer.concat([Buffer.from(start + blockStart), tokens[0]!]),
    tokens: tokens.slice(1),
    last,
    lastWithUsage: last,
  };
}

function geminiFrames(chunks: number): StreamFrames {
  const frame = (payload: unknown) => Buffer.from(`data: ${JSON.stringify(payload)}\r\n\r\n`);
  const tokens = Array.from({ length: chunks }, (_, index) =>
    frame({ candidates: [geminiCandidate(tokenText(index))], modelVersion: 'gemini-2.5-flash' }),
  );
  const last = frame({
    candidates: [geminiCandidate('', 'STOP')],
    usageMetadata: { ...geminiUsage, candidatesTokenCount: chunks },
    modelVersion: 'gemini-2.5-flash',
  });
  return { first: tokens[0]!, tokens: tokens.slice(1), last, lastWithUsage: last };
}

const jsonHeaders = (length: number) => ({ 'content-type': 'application/json', 'content-length': length });
const streamHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const modelsBody = Buffer.from(
  JSON.stringify({
    object: 'list',
    data: ['gpt-4o-mini', 'claude-sonnet-4-5'].map((id) => ({
      id,
      object: 'model',
      created: CREATED,
      owned_by: 'bench',
    })),
  }),
);

const STREAM_PATTERN = /"stream"\s*:\s*true/;
const USAGE_PATTERN = /"include_usage"\s*:\s*true/;

export interface FastUpstream {
  url: string;
  server: Server;
  configure(shape: Partial<StreamShape>): void;
  close(): Promise<void>;
}

export function createFastUpstream(initial: StreamShape = { chunks: 10, delayMs: 2 }): {
  server: Server;
  configure(shape: Partial<StreamShape>): void;
} {
  let shape = { ...initial };
  const framesOf = (chunks: number) => ({
    openai: openaiFrames(chunks),
    anthropic: anthropicFrames(chunks),
    gemini: geminiFrames(chunks),
  });
  let frames = framesOf(shape.chunks);
  const configure = (next: Partial<StreamShape>) => {
    shape = { ...shape, ...next };
    shape.chunks = Math.max(1, Math.floor(shape.chunks));
    frames = framesOf(shape.chunks);
  };

  function stream(request: IncomingMessage, response: ServerResponse, reply: StreamFrames, withUsage: boolean) {
    response.writeHead(200, streamHeaders);
    response.write(reply.first);
    const { delayMs } = shape;
    const end = withUsage ? reply.lastWithUsage : reply.last;
    if (delayMs <= 0 || reply.tokens.length === 0) {
      for (const token of reply.tokens) response.write(token);
      response.end(end);
      return;
    }
    let next = 0;
    let timer: NodeJS.Timeout | null = null;
    const tick = () => {
      timer = null;
      response.write(reply.tokens[next++]!);
      if (next >= reply.tokens.length) response.end(end);
      else timer = setTimeout(tick, delayMs);
    };
    timer = setTimeout(tick, delayMs);
    request.socket.once('close', () => {
      if (timer) clearTimeout(timer);
    });
  }

  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (request.method === 'GET') {
      if (url.endsWith('/models')) response.writeHead(200, jsonHeaders(modelsBody.length)).end(modelsBody);
      else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = parts.length === 1 ? parts[0]!.toString('latin1') : Buffer.concat(parts).toString('latin1');
      if (url === '/__bench/config') {
        configure(JSON.parse(body) as Partial<StreamShape>);
        response.writeHead(204).end();
        return;
      }
      const isChat = url.endsWith('/chat/completions');
      if (url.includes(':generateContent')) {
        response.writeHead(200, jsonHeaders(geminiJson.length)).end(geminiJson);
        return;
      }
      if (url.includes(':streamGenerateContent')) {
        stream(request, response, frames.gemini, true);
        return;
      }
      if (!isChat && !url.endsWith('/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      if (STREAM_PATTERN.test(body)) {
        stream(request, response, isChat ? frames.openai : frames.anthropic, isChat && USAGE_PATTERN.test(body));
        return;
      }
      const reply = isChat ? openaiJson : anthropicJson;
      response.writeHead(200, jsonHeaders(reply.length)).end(reply);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  return { server, configure };
}

export async function startFastUpstream(initial?: StreamShape, port = 0): Promise<FastUpstream> {
  const { server, configure } = createFastUpstream(initial);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    server,
    configure,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (isMain(import.meta.url)) {
  const upstream = await startFastUpstream();
  const port = Number(new URL(upstream.url).port);
  if (process.send) process.send({ port });
  else console.log(`fast fake upstream on ${upstream.url}`);
  process.on('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
  process.on('disconnect', () => void upstream.close().then(() => process.exit(0)));
}
