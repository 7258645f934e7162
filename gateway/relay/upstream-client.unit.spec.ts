/**
 * The upstream client's URL split (it calls undici with origin and path, not a URL to parse again),
 * and its two calls on undici's dispatcher: the reply read whole, and the reply relayed as it arrives,
 * each ended by the client's abort.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClientAbort } from './client-abort.ts';
import { splitUrl, UpstreamClient } from './upstream-client.ts';

describe('splitUrl', () => {
  it.each([
    ['https://api.openai.com/v1/chat/completions', 'https://api.openai.com', '/v1/chat/completions'],
    ['http://127.0.0.1:8080/v1/messages', 'http://127.0.0.1:8080', '/v1/messages'],
    [
      'https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21',
      'https://x.openai.azure.com',
      '/openai/deployments/d/chat/completions?api-version=2024-10-21',
    ],
    ['http://[::1]:9000/v1/chat/completions', 'http://[::1]:9000', '/v1/chat/completions'],
    ['https://host.example', 'https://host.example', '/'],
  ])('%s', (url, origin, path) => {
    expect(splitUrl(url)).toEqual({ origin, path });
  });
});

describe('sendBuffered: the reply read whole', () => {
  async function serve(handler: Parameters<typeof createServer>[1]) {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const client = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    const close = async () => {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    return { url, client, close };
  }

  it('joins a body sent in several chunks, and finds headers by name in any case', async () => {
    const { url, client, close } = await serve((request, response) => {
      let received = '';
      request.on('data', (chunk) => (received += chunk));
      request.on('end', () => {
        response.writeHead(429, { 'Retry-After': '7', 'content-type': 'application/json' });
        response.write('{"echo":');
        setTimeout(() => response.end(`${JSON.stringify(received)},"tail":"é"}`), 20);
      });
    });
    try {
      const reply = await client.sendBuffered({ url, headers: {}, body: '{"model":"m"}' }, new ClientAbort());
      expect(reply.statusCode).toBe(429);
      expect(reply.header('retry-after')).toBe('7');
      expect(reply.header('x-absent')).toBeUndefined();
      expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ echo: '{"model":"m"}', tail: 'é' });
    } finally {
      await close();
    }
  });

  it('ends a call still waiting for the upstream when the client goes, and leaves no listener behind', async () => {
    const { url, client, close } = await serve(() => {
      // never answers
    });
    try {
      const abort = new ClientAbort();
      const call = client.sendBuffered({ url, headers: {}, body: '{}' }, abort);
      setTimeout(() => abort.abort(), 50);
      const started = performance.now();
      await expect(call).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(abort.listenerCount('abort')).toBe(0);
    } finally {
      await close();
    }
  });

  it('does not start a call whose client has already gone', async () => {
    let reached = false;
    const { url, client, close } = await serve((_request, response) => {
      reached = true;
      response.end('{}');
    });
    try {
      const abort = new ClientAbort();
      abort.abort();
      await expect(client.sendBuffered({ url, headers: {}, body: '{}' }, abort)).rejects.toMatchObject({
        code: 'UND_ERR_ABORTED',
      });
      expect(reached).toBe(false);
    } finally {
      await close();
    }
  });

  it('rejects with the transport error when the upstream cannot be reached', async () => {
    const { url, close } = await serve(() => {});
    await close();
    const client = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    await expect(client.sendBuffered({ url, headers: {}, body: '{}' }, new ClientAbort())).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await client.close();
  });
});

describe('sendStreamed: the reply relayed as it arrives', () => {
  it('hands over the chunks in order, and ends the body when the client goes mid-stream', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'X-Upstream': 'yes' });
      response.write('data: 1\n\n');
      setTimeout(() => response.write('data: 2\n\n'), 20);
      // never ends
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const client = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    try {
      const abort = new ClientAbort();
      const reply = await client.sendStreamed({ url, headers: {}, body: '{}' }, abort);
      expect(reply.statusCode).toBe(200);
      expect(reply.header('x-upstream')).toBe('yes');
      let text = '';
      const body = reply.consume((chunk) => {
        text += chunk.toString('utf8');
        if (text.includes('data: 2')) abort.abort();
        return true;
      });
      await expect(body).rejects.toMatchObject({ code: 'UND_ERR_ABORTED' });
      expect(text).toBe('data: 1\n\ndata: 2\n\n');
      expect(abort.listenerCount('abort')).toBe(0);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('holds the upstream, not its whole body, until the reply is consumed', async () => {
    const frames = 4_000;
    let written = 0;
    const server = createServer(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      while (written < frames) {
        written++;
        if (!response.write(`data: ${'y'.repeat(4096)}\n\n`))
          await new Promise((resolve) => response.once('drain', resolve));
      }
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
    const client = new UpstreamClient({ headersTimeoutMs: 30_000, idleTimeoutMs: 30_000 });
    try {
      const reply = await client.sendStreamed({ url, headers: {}, body: '{}' }, new ClientAbort());
      await new Promise((resolve) => setTimeout(resolve, 300));
      // 16 MB were ready upstream; a paused read leaves all but the socket buffers' worth of it there.
      expect(written).toBeLessThan(frames / 2);
      let bytes = 0;
      await reply.consume((chunk) => {
        bytes += chunk.length;
        return true;
      });
      expect(bytes).toBe(frames * (4096 + 8));
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
