/**
 * The stream relay's backpressure, end to end on real sockets: a client that stops reading must pause
 * the upstream read (through undici's dispatcher), not grow a buffer in the gateway, and once it reads
 * again every frame must arrive, in order.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIStreamRelay } from '../providers/openai/stream-relay.ts';
import { ClientAbort } from './client-abort.ts';
import { pipeStream } from './pipe-stream.ts';
import { RequestRecord } from './request-record.ts';
import { UpstreamClient } from './upstream-client.ts';

const FRAMES = 10_000;
const FILLER = 'x'.repeat(4096);

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

describe('pipeStream', () => {
  it('pauses the upstream while the client does not read, then relays every frame in order', async () => {
    let written = 0;
    const upstreamUrl = await listen(
      createServer(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        while (written < FRAMES) {
          const frame = `data: ${written} ${FILLER}\n\n`;
          written++;
          if (!response.write(frame)) await new Promise((resolve) => response.once('drain', resolve));
        }
        response.end('data: [DONE]\n\n');
      }),
    );
    const upstream = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    clients.push(upstream);
    const gatewayUrl = await listen(
      createServer(async (_request, response) => {
        const abort = new ClientAbort();
        response.on('close', () => abort.abort());
        const reply = await upstream.sendStreamed(
          { url: `${upstreamUrl}/v1/chat/completions`, headers: {}, body: '{}' },
          abort,
        );
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const relay = new OpenAIStreamRelay({ hideUsageChunk: false });
        await pipeStream(reply, response, relay, new RequestRecord('request-1', 'chat.completions'));
        response.end();
      }),
    );
    const clientResponse = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(`${gatewayUrl}/`, { method: 'POST' }, resolve);
      outgoing.on('error', reject);
      outgoing.end('{}');
    });
    clientResponse.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // 40 MB were ready upstream; socket buffers and one write buffer hold a few MB at most.
    expect(written).toBeLessThan(FRAMES / 2);
    let text = '';
    clientResponse.setEncoding('utf8');
    for await (const chunk of clientResponse) text += chunk;
    const numbers = [...text.matchAll(/^data: (\d+) /gm)].map((match) => Number(match[1]));
    expect(numbers).toHaveLength(FRAMES);
    expect(numbers.every((value, index) => value === index)).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
