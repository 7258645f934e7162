/**
 * Reading a request body with listeners: whole bodies in several chunks, the limit, and a client that
 * goes away halfway through, against a real node:http server.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from './read-body.ts';

let server: Server | null = null;
afterEach(() => server?.close());

/** A server whose handler reads the body with `limit`; resolves with what readBody gave or threw. */
function serve(limit: number): Promise<{ port: number; outcome: Promise<Buffer | Error> }> {
  return new Promise((resolveStarted) => {
    let deliver!: (value: Buffer | Error) => void;
    const outcome = new Promise<Buffer | Error>((resolve) => {
      deliver = resolve;
    });
    server = createServer((request: IncomingMessage, response) => {
      readBody(request, limit).then(
        (body) => {
          deliver(body);
          response.end('ok');
        },
        (error: Error) => {
          deliver(error);
          response.writeHead(413, { connection: 'close' });
          response.end('refused');
        },
      );
    });
    server.listen(0, '127.0.0.1', () => resolveStarted({ port: (server!.address() as AddressInfo).port, outcome }));
  });
}

function send(port: number, chunks: string[], end = true) {
  const request = httpRequest({ port, host: '127.0.0.1', method: 'POST', headers: { 'transfer-encoding': 'chunked' } });
  request.on('error', () => {});
  const status = new Promise<number>((resolve) => request.on('response', (response) => resolve(response.statusCode!)));
  for (const chunk of chunks) request.write(chunk);
  if (end) request.end();
  return { request, status };
}

describe('readBody', () => {
  it('joins a body sent in several chunks', async () => {
    const { port, outcome } = await serve(1024);
    const { status } = send(port, ['{"a":', '1,"b":', '"two"}']);
    expect(((await outcome) as Buffer).toString()).toBe('{"a":1,"b":"two"}');
    expect(await status).toBe(200);
  });

  it('refuses a chunked body over the limit and still answers', async () => {
    const { port, outcome } = await serve(10);
    const { status } = send(port, ['0123456789', 'abcdef']);
    const error = (await outcome) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/larger than the limit of 10 bytes/);
    expect(await status).toBe(413);
  });

  it('fails, rather than waits for ever, when the client leaves halfway', async () => {
    const { port, outcome } = await serve(1024);
    const { request } = send(port, ['{"a":'], false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    request.destroy();
    const error = (await outcome) as Error;
    // Node destroys the request with an 'aborted' error, ECONNRESET.
    expect(error).toBeInstanceOf(Error);
    expect((error as Error & { code?: string }).code).toBe('ECONNRESET');
  });
});
