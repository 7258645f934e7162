/**
 * @module test/support/scripted-upstream
 * An upstream whose every answer the test writes: a `node:http` server on both provider paths that
 * hands each request (path, headers, parsed body) to a script and sends what it returns, a JSON body
 * or a list of SSE frames. For hostile-upstream tests: echoed headers, impossible usage figures.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export type ScriptedReply =
  | { status: number; json: unknown }
  /** JSON text as given (for bodies `JSON.stringify` could not write, such as very deep ones) */
  | { status: number; text: string }
  /** `frames` are written as given, each followed by a blank line (`data: …` or `event: …\ndata: …`) */
  | { status: 200; frames: string[] };

export interface ScriptedUpstream {
  /** OpenAI channels take `${url}/v1`, Anthropic channels `url` */
  url: string;
  script: (request: ScriptedRequest) => ScriptedReply;
  close(): Promise<void>;
}

export async function startScriptedUpstream(
  script: ScriptedUpstream['script'] = () => ({ status: 500, json: { error: { message: 'no script' } } }),
): Promise<ScriptedUpstream> {
  const upstream: ScriptedUpstream = { url: '', script, close: async () => {} };
  const server = createServer(async (request, response) => {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    const reply = upstream.script({
      path: new URL(request.url ?? '/', 'http://upstream').pathname,
      headers: request.headers,
      body: text ? JSON.parse(text) : {},
    });
    if ('frames' in reply) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of reply.frames) response.write(`${frame}\n\n`);
      response.end();
      return;
    }
    const body = 'text' in reply ? reply.text : JSON.stringify(reply.json);
    response.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return upstream;
}
