/**
 * Clients that hold sockets without using them: a body or headers sent a byte at a
 * time, idle keep-alive sockets, and more sockets from one address than it may have. Each case runs a
 * real gateway with small limits and talks raw TCP, so that nothing on the client side times out first.
 * 127.0.0.1 and 127.0.0.2 are both loopback on Linux: a socket bound to each is a distinct client address.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

interface RawClient {
  socket: net.Socket;
  /** everything the server sent */
  received(): string;
  /** resolves with the milliseconds from connect to the socket's close */
  closed: Promise<number>;
}

let harness: Harness | null = null;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await harness?.stop();
  harness = null;
});

async function gateway(environment: Record<string, string>): Promise<Harness> {
  harness = await startHarness({ environment });
  return harness;
}

function portOf(target: Harness): number {
  return Number(new URL(target.baseUrl).port);
}

function connect(target: Harness, localAddress = '127.0.0.1'): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ port: portOf(target), host: '127.0.0.1', localAddress });
    sockets.push(socket);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((resolveClosed) =>
      socket.once('close', () => resolveClosed(performance.now() - started)),
    );
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `text` one byte every `intervalMs` until the socket closes or the text is sent. */
async function dribble(client: RawClient, text: string, intervalMs: number): Promise<void> {
  for (const byte of text) {
    if (client.socket.destroyed) return;
    client.socket.write(byte);
    await sleep(intervalMs);
  }
}

/** Resolves with the time from `since` until `promise` settles, or `Infinity` if it takes longer than `withinMs`. */
async function timeTo(promise: Promise<unknown>, withinMs: number): Promise<number> {
  const started = performance.now();
  const result = await Promise.race([promise.then(() => 'done'), sleep(withinMs).then(() => 'late')]);
  return result === 'done' ? performance.now() - started : Number.POSITIVE_INFINITY;
}

async function keyFor(target: Harness): Promise<string> {
  const client = new ConsoleClient(target.baseUrl);
  await client.register(`slow-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`);
  return (await client.createToken('slow')).key;
}

function request(target: Harness, path: string, headers: Record<string, string>, body = ''): string {
  const lines = Object.entries({ host: new URL(target.baseUrl).host, ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

describe('a request sent slowly', () => {
  const limits = { REQUEST_TIMEOUT_MS: '800', HEADERS_TIMEOUT_MS: '400' };

  it('is cut with 408 once REQUEST_TIMEOUT_MS has passed when its body comes one byte at a time (sign-in)', async () => {
    const target = await gateway(limits);
    const client = await connect(target);
    const body = JSON.stringify({ email: 'someone@example.com', password: 'x'.repeat(200) });
    client.socket.write(
      request(target, '/api/auth/login', {
        origin: target.baseUrl,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      }),
    );
    void dribble(client, body, 50);
    const closedAfter = await Promise.race([client.closed, sleep(5_000).then(() => Number.POSITIVE_INFINITY)]);
    // The deadline, plus at most one check of the server's timer (a quarter of the shortest deadline).
    expect(closedAfter).toBeGreaterThan(700);
    expect(closedAfter).toBeLessThan(800 + 200 + 600);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('is cut on the relay endpoint too, and the request is still recorded, as the 408 the client saw', async () => {
    const target = await gateway(limits);
    const key = await keyFor(target);
    const client = await connect(target);
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(200) }] });
    client.socket.write(
      request(target, '/v1/chat/completions', {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'x-request-id': 'slow-body-relay',
      }),
    );
    void dribble(client, body, 50);
    const closedAfter = await Promise.race([client.closed, sleep(5_000).then(() => Number.POSITIVE_INFINITY)]);
    expect(closedAfter).toBeLessThan(800 + 200 + 600);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(target.upstream.requests).toHaveLength(0);
    await sleep(100);
    await target.runtime.publisher.flush();
    await target.runtime.stores.sync.caughtUp();
    const completed = loggedEvents(target.dataDirectory).filter(
      (event) => event.type === 'request.completed' && event.body.clientRequestId === 'slow-body-relay',
    );
    expect(completed).toHaveLength(1);
    // The status the client saw, not 499: the server cut the request, the client did not leave.
    expect(completed[0]!.type === 'request.completed' && completed[0]!.body).toMatchObject({
      status: 408,
      errorType: 'request_timeout',
      clientAborted: false,
    });
  });

  it('is cut once HEADERS_TIMEOUT_MS has passed when its headers come one byte at a time', async () => {
    const target = await gateway(limits);
    const client = await connect(target);
    void dribble(client, request(target, '/api/auth/login', { 'x-padding': 'y'.repeat(100) }), 50);
    const closedAfter = await Promise.race([client.closed, sleep(5_000).then(() => Number.POSITIVE_INFINITY)]);
    expect(closedAfter).toBeGreaterThan(300);
    expect(closedAfter).toBeLessThan(400 + 100 + 600);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('is served when its body arrives in pieces well within the deadline', async () => {
    const target = await gateway({ REQUEST_TIMEOUT_MS: '3000', HEADERS_TIMEOUT_MS: '400' });
    const key = await keyFor(target);
    const client = await connect(target);
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    client.socket.write(
      request(target, '/v1/chat/completions', {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
      }),
    );
    // Ten pieces over about a second: longer than the headers deadline, well within the request's.
    for (let start = 0; start < body.length; start += Math.ceil(body.length / 10)) {
      await sleep(100);
      client.socket.write(body.slice(start, start + Math.ceil(body.length / 10)));
    }
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('a streamed response', () => {
  it('runs on past the request deadline and the keep-alive timeout, and is not cut', async () => {
    const target = await gateway({
      REQUEST_TIMEOUT_MS: '400',
      HEADERS_TIMEOUT_MS: '200',
      KEEP_ALIVE_TIMEOUT_MS: '200',
    });
    const key = await keyFor(target);
    // Silent for 1.2 s after its head (a model thinking), then 13 chunks: three times each limit.
    target.upstream.next({ fixture: 'text', delayFirstChunkMs: 1_200, chunkDelayMs: 30 });
    const started = performance.now();
    const response = await fetch(`${target.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(1_200);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toMatch(/"error"/);
  });
});

describe('idle sockets', () => {
  it('are closed KEEP_ALIVE_TIMEOUT_MS after their last response', async () => {
    const target = await gateway({ KEEP_ALIVE_TIMEOUT_MS: '400' });
    const clients = await Promise.all(Array.from({ length: 50 }, () => connect(target)));
    for (const client of clients) client.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await sleep(200);
    expect(clients.every((client) => /^HTTP\/1\.1 200 /.test(client.received()))).toBe(true);
    expect(clients.filter((client) => !client.socket.destroyed)).toHaveLength(50);
    // Node gives an idle socket one second more than the keep-alive timeout it advertises
    // (`keep-alive: timeout=…`), so that a client reusing it at the last moment is not reset.
    const closedWithin = await timeTo(Promise.all(clients.map((client) => client.closed)), 3_000);
    expect(closedWithin).toBeGreaterThan(400 + 1_000 - 200 - 150);
    expect(closedWithin).toBeLessThan(400 + 1_000 - 200 + 600);
  });

  it('are closed HEADERS_TIMEOUT_MS after they connect when they never send a request', async () => {
    const target = await gateway({ HEADERS_TIMEOUT_MS: '400' });
    const clients = await Promise.all(Array.from({ length: 50 }, () => connect(target)));
    const closedWithin = await timeTo(Promise.all(clients.map((client) => client.closed)), 3_000);
    expect(closedWithin).toBeGreaterThan(300);
    expect(closedWithin).toBeLessThan(400 + 100 + 600);
  });
});

describe('connection caps', () => {
  async function served(client: RawClient): Promise<boolean> {
    client.socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    for (let waited = 0; waited < 2_000 && !/\r\n\r\n/.test(client.received()); waited += 20) await sleep(20);
    return /^HTTP\/1\.1 200 /.test(client.received());
  }

  it('refuse the socket one address opens past MAX_CONNECTIONS_PER_ADDRESS at once, and serve other addresses', async () => {
    const target = await gateway({ MAX_CONNECTIONS_PER_ADDRESS: '3', HEADERS_TIMEOUT_MS: '20000' });
    const held = [await connect(target), await connect(target), await connect(target)];
    for (const client of held) expect(await served(client)).toBe(true);
    const refused = await connect(target);
    const closedAfter = await timeTo(refused.closed, 2_000);
    expect(closedAfter).toBeLessThan(500);
    // It sent nothing, so nothing of its own is left unread to make the close a reset: the 503 arrives.
    expect(refused.received()).toMatch(/^HTTP\/1\.1 503 [\s\S]*\r\n\r\nToo many connections from this address/);
    // Its descriptor is released at once: the server counts the three held sockets and nothing more.
    await sleep(50);
    const count = await new Promise<number>((resolve, reject) =>
      target.runtime.server.getConnections((error, value) => (error ? reject(error) : resolve(value))),
    );
    expect(count).toBe(3);
    const other = await connect(target, '127.0.0.2');
    expect(await served(other)).toBe(true);
    // A socket freed on the first address makes room for one more there.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(50);
    expect(await served(await connect(target))).toBe(true);
  });

  it('refuse the socket past MAX_CONNECTIONS for the process at once, whatever its address', async () => {
    const target = await gateway({
      MAX_CONNECTIONS: '4',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      HEADERS_TIMEOUT_MS: '20000',
    });
    const held = [
      await connect(target),
      await connect(target),
      await connect(target, '127.0.0.2'),
      await connect(target, '127.0.0.2'),
    ];
    for (const client of held) expect(await served(client)).toBe(true);
    const refused = await connect(target, '127.0.0.3');
    expect(await timeTo(refused.closed, 2_000)).toBeLessThan(500);
    expect(refused.received()).toBe('');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(50);
    expect(await served(await connect(target, '127.0.0.3'))).toBe(true);
  });
});
