/**
 * An upstream that misbehaves on purpose, speaking either format by path (`/v1/chat/completions`:
 * OpenAI, `/v1/messages`: Anthropic): a flood of SSE frames with no usage (as fast as the socket
 * takes them, or one every few ms), oversized replies and frames, redirects, compressed or non-SSE
 * streams. Every request meets the current behaviour; it records when each reply's connection closed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export type HostileBehaviour =
  /** SSE frames of letters with no whitespace and no usage, forever; `frameDelayMs` 0: as fast as possible */
  | { kind: 'flood'; frameDelayMs: number }
  /** a non-streamed 200 JSON reply of about `bytes` */
  | { kind: 'large-json'; bytes: number }
  /** a 200 event stream that starts a frame and never ends its line: `bytes` with no newline */
  | { kind: 'endless-frame'; bytes: number }
  /** a redirect, streamed or not */
  | { kind: 'redirect'; status: number }
  /** a proper reply (stream or JSON), gzip-compressed, sent with `content-encoding` as given */
  | { kind: 'compressed'; encoding: string }
  /** a 200 reply whose body has no SSE frame: `content-type` as given, text with or without newlines */
  | { kind: 'not-sse'; contentType: string; body: string };

export interface HostileUpstream {
  url: string;
  behave(behaviour: HostileBehaviour): void;
  /**
   * One entry per request: when its reply closed (performance.now()), null while open, and when its
   * connection closed (a reply read whole leaves it open in the gateway's keep-alive pool; a call
   * the gateway ended closes it).
   */
  readonly replies: Array<{ path: string; closedAt: number | null; connectionClosedAt: number | null }>;
  close(): Promise<void>;
}

/** 16 letters and no space: the text a BPE tokenizer finds hardest, as one ever-growing word. */
const LETTERS = 'qwertyuiopasdfgh';

function frameOf(path: string, text: string): string {
  return path.endsWith('/messages')
    ? `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\n`
    : `data: {"id":"chatcmpl-hostile","object":"chat.completion.chunk","created":1,"model":"hostile","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`;
}

function openingOf(path: string): string {
  return path.endsWith('/messages')
    ? 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01hostile","type":"message","role":"assistant","model":"hostile","content":[],"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    : '';
}

function wholeStream(path: string): string {
  return path.endsWith('/messages')
    ? `${openingOf(path)}${frameOf(path, 'hello')}event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`
    : `${frameOf(path, 'hello')}data: [DONE]\n\n`;
}

function flood(path: string, response: http.ServerResponse, frameDelayMs: number): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(openingOf(path));
  // 64 frames a write when flooding: about 10 KB, as a fast upstream's socket reads would carry.
  const burst = frameOf(path, LETTERS).repeat(frameDelayMs === 0 ? 64 : 1);
  const pump = () => {
    if (frameDelayMs === 0) {
      while (!response.destroyed && response.write(burst)) {}
      return;
    }
    const timer = setInterval(() => {
      if (response.destroyed) clearInterval(timer);
      else response.write(burst);
    }, frameDelayMs);
    response.once('close', () => clearInterval(timer));
  };
  if (frameDelayMs === 0) response.on('drain', pump);
  pump();
}

function largeJson(path: string, bytes: number): string {
  const text = 'x'.repeat(bytes);
  return path.endsWith('/messages')
    ? JSON.stringify({
        id: 'msg_01hostile',
        type: 'message',
        role: 'assistant',
        model: 'hostile',
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      })
    : JSON.stringify({
        id: 'chatcmpl-hostile',
        object: 'chat.completion',
        created: 1,
        model: 'hostile',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
}

/** Writes `bytes` of `unit` repeated, respecting backpressure, then ends. */
function writeRepeated(response: http.ServerResponse, unit: string, bytes: number): void {
  const block = Buffer.from(unit.repeat(Math.ceil(65_536 / unit.length)));
  let left = bytes;
  const pump = () => {
    while (left > 0 && !response.destroyed) {
      const piece = left >= block.length ? block : block.subarray(0, left);
      left -= piece.length;
      if (!response.write(piece)) return;
    }
    if (left <= 0) response.end();
  };
  response.on('drain', pump);
  pump();
}

function answer(behaviour: HostileBehaviour, path: string, stream: boolean, response: http.ServerResponse): void {
  switch (behaviour.kind) {
    case 'flood':
      flood(path, response, behaviour.frameDelayMs);
      return;
    case 'large-json':
      response.writeHead(200, { 'content-type': 'application/json' });
      return void response.end(largeJson(path, behaviour.bytes));
    case 'endless-frame':
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"id":"chatcmpl-hostile","choices":[{"delta":{"content":"');
      writeRepeated(response, LETTERS, behaviour.bytes);
      return;
    case 'redirect':
      response.writeHead(behaviour.status, { location: 'https://example.com/elsewhere', 'content-type': 'text/html' });
      return void response.end('<html><body>Moved</body></html>');
    case 'compressed':
      response.writeHead(200, {
        'content-type': stream ? 'text/event-stream' : 'application/json',
        'content-encoding': behaviour.encoding,
      });
      return void response.end(gzipSync(stream ? wholeStream(path) : largeJson(path, 10)));
    case 'not-sse':
      response.writeHead(200, { 'content-type': behaviour.contentType });
      return void response.end(behaviour.body);
  }
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  let behaviour: HostileBehaviour = { kind: 'flood', frameDelayMs: 0 };
  const replies: HostileUpstream['replies'] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        path: request.url ?? '',
        closedAt: null as number | null,
        connectionClosedAt: null as number | null,
      };
      replies.push(entry);
      response.on('close', () => {
        entry.closedAt = performance.now();
      });
      request.socket.once('close', () => {
        entry.connectionClosedAt = performance.now();
      });
      const stream = /"stream"\s*:\s*true/.test(Buffer.concat(chunks).toString());
      answer(behaviour, entry.path, stream, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    behave(next) {
      behaviour = next;
    },
    replies,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
