/**
 * @module bench/node-ceiling
 * The Node ceiling: the least a Node relay can do and still be a gateway. It parses the JSON body,
 * checks the key against a set, forwards the re-serialised body over an undici Pool, and re-serialises
 * the JSON reply (streams are forwarded chunk by chunk). Not product code: it is the yardstick the
 * gateway's throughput is compared with.
 *
 * The parse ceiling (`mode` 'parse') is the least a validating gateway does with an agent's large
 * body: it parses the body and checks the model (in the body, or a Gemini URL's `models/{model}:` in
 * either mode),
 * then forwards the client's original bytes and the upstream's reply bytes as they are.
 *
 * Run as a child: `node --import tsx bench/node-ceiling.ts <upstream-url> <client-key> [parse]`;
 * listens on 127.0.0.1, port 0, and sends `{ port }` over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { isMain } from './processes.ts';

export type CeilingMode = 'reserialise' | 'parse';

const GEMINI_MODEL = /\/models\/[^/:]+:/;

export function createCeiling(upstreamUrl: string, keys: ReadonlySet<string>, mode: CeilingMode = 'reserialise') {
  const pool = new Pool(upstreamUrl, { pipelining: 1, keepAliveTimeout: 30_000 });
  const fail = (response: import('node:http').ServerResponse, status: number, message: string) => {
    const body = JSON.stringify({ error: { message } });
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', async () => {
      const authorization = request.headers.authorization;
      const key = authorization?.startsWith('Bearer ') ? authorization.slice(7) : request.headers['x-api-key'];
      if (typeof key !== 'string' || !keys.has(key)) return fail(response, 401, 'invalid key');
      const bytes = Buffer.concat(parts);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(bytes.toString('utf8'));
      } catch {
        return fail(response, 400, 'invalid JSON');
      }
      const url = request.url ?? '/';
      if (typeof body['model'] !== 'string' && !GEMINI_MODEL.test(url)) {
        return fail(response, 400, 'model: required');
      }
      try {
        const upstream = await pool.request({
          path: url,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: 'Bearer upstream-key',
            'anthropic-version': '2023-06-01',
          },
          body: mode === 'parse' ? bytes : JSON.stringify(body),
        });
        if (body['stream'] === true || url.includes(':streamGenerateContent')) {
          response.writeHead(upstream.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          for await (const chunk of upstream.body) response.write(chunk);
          response.end();
          return;
        }
        const reply =
          mode === 'parse'
            ? Buffer.from(await upstream.body.arrayBuffer())
            : Buffer.from(JSON.stringify(await upstream.body.json()));
        response.writeHead(upstream.statusCode, { 'content-type': 'application/json', 'content-length': reply.length });
        response.end(reply);
      } catch (error) {
        if (!response.headersSent) fail(response, 502, String(error));
        else response.destroy();
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  return { server, close: () => pool.close() };
}

if (isMain(import.meta.url)) {
  const [upstreamUrl, key, mode] = process.argv.slice(2);
  if (!upstreamUrl || !key) throw new Error('usage: node-ceiling.ts <upstream-url> <client-key> [parse]');
  const { server, close } = createCeiling(upstreamUrl, new Set([key]), mode === 'parse' ? 'parse' : 'reserialise');
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  const stop = () => {
    server.close(() => void close().then(() => process.exit(0)));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}
