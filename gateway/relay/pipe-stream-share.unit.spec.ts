/**
 * A stream's share of the process: the relay reads at most 64 KiB of an upstream per turn of the
 * event loop (an upstream with more waiting is not read again in the same turn, so another client's
 * request is served between two large chunks; a model's small chunks pass at once), and a key's streams relay no faster than its pace (stream-pacer.ts),
 * while another key's stream on the same pacer goes at its own speed.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIStreamRelay } from '../providers/openai/stream-relay.ts';
import { ClientAbort } from './client-abort.ts';
import { pipeStream } from './pipe-stream.ts';
import { RequestRecord } from './request-record.ts';
import { StreamPacer } from './stream-pacer.ts';
import type { ChunkSink, StreamedReply } from './streamed-reply.ts';
import { UpstreamClient } from './upstream-client.ts';

const servers: Server[] = [];
const clients: UpstreamClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A reply whose chunks are all waiting, delivered as libuv delivers a socket's: again and again in
 * the same turn while the sink takes them. `perTurn` is how many each turn delivered.
 */
function waitingReply(chunks: Buffer[]): { reply: StreamedReply; perTurn: number[] } {
  const perTurn: number[] = [];
  let sink: ChunkSink | null = null;
  let next = 0;
  let done = () => {};
  const pump = () => {
    let delivered = 0;
    while (next < chunks.length) {
      delivered++;
      if (!sink!(chunks[next++]!)) break;
    }
    perTurn.push(delivered);
    if (next === chunks.length) done();
  };
  const reply: StreamedReply = {
    statusCode: 200,
    contentType: 'text/event-stream',
    contentEncoding: undefined,
    frameLimitBytes: 1 << 20,
    streamLimitBytes: 1 << 30,
    header: () => undefined,
    consume: (given) =>
      new Promise<void>((resolve) => {
        sink = given;
        done = resolve;
        pump();
      }),
    resume: () => {
      if (next < chunks.length) setImmediate(pump);
    },
    abort: () => {},
  };
  return { reply, perTurn };
}

const openClient = (): ServerResponse =>
  ({ destroyed: false, writableNeedDrain: false, write: () => true, once: () => {} }) as unknown as ServerResponse;

describe('a stream’s share of the process', () => {
  it('reads one large chunk a turn from an upstream whose chunks are all waiting', async () => {
    const text = 'x'.repeat(64 * 1024);
    const chunks = Array.from({ length: 50 }, (_, index) =>
      Buffer.from(`data: {"index":${index},"text":"${text}"}\n\n`),
    );
    const { reply, perTurn } = waitingReply(chunks);
    const relay = new OpenAIStreamRelay({ hideUsageChunk: false });
    await pipeStream(reply, openClient(), relay, new RequestRecord('request-1', 'chat.completions'));
    expect(perTurn).toHaveLength(chunks.length);
    expect(perTurn.every((count) => count === 1)).toBe(true);
  });

  it('reads a model’s small chunks as they come, without waiting a turn for each', async () => {
    const chunks = Array.from({ length: 50 }, (_, index) => Buffer.from(`data: {"index":${index}}\n\n`));
    const { reply, perTurn } = waitingReply(chunks);
    const relay = new OpenAIStreamRelay({ hideUsageChunk: false });
    await pipeStream(reply, openClient(), relay, new RequestRecord('request-1', 'chat.completions'));
    expect(perTurn).toEqual([chunks.length]);
  });

  it('relays a key’s stream at its pace, and another key’s beside it at its own speed', async () => {
    const frame = `data: ${'x'.repeat(16 * 1024)}\n\n`;
    const upstreamUrl = await listen(
      createServer(async (request, response) => {
        const frames = request.url === '/long' ? 192 : 32;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let index = 0; index < frames; index++) {
          if (!response.write(frame)) await new Promise((resolve) => response.once('drain', resolve));
        }
        response.end('data: [DONE]\n\n');
      }),
    );
    const upstream = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    clients.push(upstream);
    // 1 MiB a second a key: the long stream (3 MiB) takes about two seconds after its first second's worth.
    const pacer = new StreamPacer(1 << 20);
    const gatewayUrl = await listen(
      createServer(async (request, response) => {
        const abort = new ClientAbort();
        response.on('close', () => abort.abort());
        const reply = await upstream.sendStreamed(
          { url: `${upstreamUrl}${request.url}`, headers: {}, body: '{}' },
          abort,
        );
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const { pace, close } = pacer.open(String(request.headers['x-key']));
        const relay = new OpenAIStreamRelay({ hideUsageChunk: false });
        await pipeStream(reply, response, relay, new RequestRecord('request-1', 'chat.completions'), { pace });
        close();
        response.end();
      }),
    );
    const fetchStream = async (path: string, key: string) => {
      const started = performance.now();
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const outgoing = httpRequest(`${gatewayUrl}${path}`, { method: 'POST', headers: { 'x-key': key } }, resolve);
        outgoing.on('error', reject);
        outgoing.end('{}');
      });
      let bytes = 0;
      for await (const chunk of response) bytes += (chunk as Buffer).length;
      return { bytes, ms: performance.now() - started };
    };
    const [long, other] = await Promise.all([fetchStream('/long', 'key-a'), fetchStream('/short', 'key-b')]);
    expect(long.bytes).toBeGreaterThan(192 * 16 * 1024);
    expect(long.ms).toBeGreaterThan(1500);
    expect(other.bytes).toBeGreaterThan(32 * 16 * 1024);
    expect(other.ms).toBeLessThan(long.ms / 2);
    expect(pacer.keys).toBe(0);
  });
});
