/**
 * A client that leaves a stream while a fast upstream floods it. The gateway runs
 * in its own process, so that a frozen event loop fails these tests instead of freezing them. For
 * both endpoints, both channel formats (same format and both conversions), several stream speeds,
 * client behaviours (stops reading, reads as fast as it can) and disconnect moments: `/healthz`
 * answers within a bound during and after, the upstream connection closes at once, and the request
 * is recorded as closed by the client (499 client_closed_request).
 *
 * The cause it guards: with no usage in a cut stream, the relay counts the reply's tokens with the
 * BPE tokenizer, whose time grows with the square (or worse) of a run of text with no whitespace;
 * a few seconds of a fast stream of such text froze the main thread for hours.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileUpstream, startHostileUpstream } from '../fake-upstream/hostile-upstream.ts';

/**
 * A bystander's health check must answer within this, whatever the stream does. Generous, because a
 * loaded CI machine (load 15 on 2 cores, other suites running beside this one) took over 3 s once while
 * a converted flood ran; the fault itself froze the process for hours.
 */
const HEALTH_BOUND_MS = 6_000;
/** The upstream connection must be closed within this after the client left. */
const UPSTREAM_CLOSE_BOUND_MS = 2_000;

type Endpoint = '/v1/chat/completions' | '/v1/messages';

interface Gateway {
  baseUrl: string;
  key: string;
  dataDirectory: string;
}

let upstream: HostileUpstream;
let child: ChildProcess;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await startHostileUpstream();
  child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/faults/support/gateway-process.ts')], {
    env: {
      ...process.env,
      HOSTILE_URL: upstream.url,
      // The client leaves before the stream's size limit could end a flood: that limit has its own test.
      GATEWAY_ENVIRONMENT: JSON.stringify({ LOG_LEVEL: 'error', UPSTREAM_STREAM_LIMIT_BYTES: String(2 ** 40) }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  gateway = await new Promise<Gateway>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((candidate) => candidate.startsWith('{"baseUrl"'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`the gateway process exited (${code}) before it started`)));
  });
}, 60_000);

afterAll(async () => {
  // SIGKILL: a frozen gateway (the fault itself) would never handle SIGTERM.
  child?.kill('SIGKILL');
  await upstream?.close();
});

/** Milliseconds `/healthz` took to answer 200, or Infinity if it did not within the bound. */
function healthLatency(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get(`${gateway.baseUrl}/healthz`, { agent: false, timeout: HEALTH_BOUND_MS }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode === 200 ? performance.now() - started : Infinity));
    });
    request.on('timeout', () => {
      request.destroy();
      resolve(Infinity);
    });
    request.on('error', () => resolve(Infinity));
  });
}

function requestText(endpoint: Endpoint, model: string, requestId: string): string {
  const body = JSON.stringify(
    endpoint === '/v1/messages'
      ? { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }
      : { model, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  );
  const auth =
    endpoint === '/v1/messages'
      ? `x-api-key: ${gateway.key}\r\nanthropic-version: 2023-06-01`
      : `authorization: Bearer ${gateway.key}`;
  return (
    `POST ${endpoint} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n${auth}\r\n` +
    `x-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** The request.completed event the gateway recorded for the id the client sent, once it is in the log. */
async function recordedCompletion(requestId: string): Promise<Record<string, unknown> | null> {
  const deadline = performance.now() + 5_000;
  while (performance.now() < deadline) {
    const database = new Database(path.join(gateway.dataDirectory, 'gateway.db'), { readonly: true });
    try {
      const rows = database.prepare("SELECT payload FROM events WHERE type = 'request.completed'").all() as Array<{
        payload: string;
      }>;
      const found = rows.map((row) => JSON.parse(row.payload).body).find((body) => body.clientRequestId === requestId);
      if (found) return found;
    } finally {
      database.close();
    }
    await sleep(100);
  }
  return null;
}

interface StreamCase {
  endpoint: Endpoint;
  model: 'hostile-openai' | 'hostile-anthropic';
  /** 0: as fast as the socket takes frames; else one frame every this many ms */
  frameDelayMs: number;
  speed: string;
  client: 'stops reading' | 'reads';
  disconnectAfterMs: number;
}

const ROUTES: Array<Pick<StreamCase, 'endpoint' | 'model'>> = [
  { endpoint: '/v1/chat/completions', model: 'hostile-openai' },
  { endpoint: '/v1/chat/completions', model: 'hostile-anthropic' },
  { endpoint: '/v1/messages', model: 'hostile-anthropic' },
  { endpoint: '/v1/messages', model: 'hostile-openai' },
];

const TIMINGS: Array<Pick<StreamCase, 'frameDelayMs' | 'speed' | 'client' | 'disconnectAfterMs'>> = [
  { frameDelayMs: 0, speed: 'flooded', client: 'stops reading', disconnectAfterMs: 1_500 },
  { frameDelayMs: 0, speed: 'flooded', client: 'reads', disconnectAfterMs: 300 },
  { frameDelayMs: 0, speed: 'flooded', client: 'reads', disconnectAfterMs: 1_500 },
  { frameDelayMs: 2, speed: 'a frame every 2 ms', client: 'reads', disconnectAfterMs: 1_000 },
];

const CASES: StreamCase[] = ROUTES.flatMap((route) => TIMINGS.map((timing) => ({ ...route, ...timing })));

describe('a client leaving a flooded stream', () => {
  it.each(CASES)(
    '$endpoint on $model, $speed, client $client, gone after $disconnectAfterMs ms: the gateway stays responsive, ends the upstream call, records 499',
    async (fault) => {
      upstream.behave({ kind: 'flood', frameDelayMs: fault.frameDelayMs });
      const repliesBefore = upstream.replies.length;
      const requestId = `leave-${fault.model}-${fault.endpoint.length}-${Date.now()}`;
      const port = Number(new URL(gateway.baseUrl).port);
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      let received = 0;
      socket.on('connect', () => {
        socket.write(requestText(fault.endpoint, fault.model, requestId));
        if (fault.client === 'stops reading') socket.pause();
        else socket.on('data', (chunk: Buffer) => (received += chunk.length));
      });
      const healthDuring: number[] = [];
      const leaveAt = performance.now() + fault.disconnectAfterMs;
      while (performance.now() < leaveAt) {
        healthDuring.push(await healthLatency());
        await sleep(Math.min(200, Math.max(0, leaveAt - performance.now())));
      }
      socket.destroy();
      const leftAt = performance.now();
      await sleep(50);
      const healthAfter = [await healthLatency(), await healthLatency()];
      // The call really reached the upstream, and the client really got a stream.
      expect(upstream.replies.length).toBe(repliesBefore + 1);
      if (fault.client === 'reads') expect(received).toBeGreaterThan(0);
      const reply = upstream.replies[repliesBefore]!;
      const closeDeadline = leftAt + UPSTREAM_CLOSE_BOUND_MS;
      while (reply.closedAt === null && performance.now() < closeDeadline) await sleep(20);
      expect(Math.max(...healthDuring), 'slowest /healthz while streaming (ms)').toBeLessThan(HEALTH_BOUND_MS);
      expect(Math.max(...healthAfter), 'slowest /healthz after the client left (ms)').toBeLessThan(HEALTH_BOUND_MS);
      expect(reply.closedAt, 'the upstream connection closed').not.toBeNull();
      expect(reply.closedAt! - leftAt).toBeLessThan(UPSTREAM_CLOSE_BOUND_MS);
      const completed = await recordedCompletion(requestId);
      expect(completed).toMatchObject({ status: 499, errorType: 'client_closed_request', clientAborted: true });
    },
    15_000,
  );
});
