/**
 * @module test/faults/support/embedded-gateway
 * The embedded fault suites' gateway and requests: a gateway on the fake upstream with short upstream
 * timeouts and a key, requests on either endpoint tagged with the test's own request id (or sent and
 * dropped after the first byte), and the events of each id read back from the SQLite event log.
 */
import http from 'node:http';
import { ConsoleClient } from '../../support/console-client.ts';
import { type Harness, startHarness } from '../../support/gateway-harness.ts';
import { loggedEvents } from '../../support/logged-events.ts';

/** The administrator every embedded fault gateway starts with. */
export const ADMIN = { email: 'faults-admin@example.com', password: 'faults-admin-password' };

/** The number at the end of a request id like `diskfull-12`. */
export function index(id: string): number {
  return Number(id.split('-').at(-1));
}

export type Endpoint = '/v1/chat/completions' | '/v1/messages';

export interface Outcome {
  status: number;
  /** 2xx and, for a stream, ended properly with no in-band error */
  ok: boolean;
}

export interface Gateway {
  harness: Harness;
  key: string;
}

export async function startGateway(environment: Record<string, string> = {}, dataDirectory?: string): Promise<Gateway> {
  const harness = await startHarness({
    environment: {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      UPSTREAM_HEADERS_TIMEOUT_MS: '400',
      UPSTREAM_IDLE_TIMEOUT_MS: '400',
      ...environment,
    },
    ...(dataDirectory && { dataDirectory }),
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register(`faults-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`);
  return { harness, key: (await client.createToken('faults')).key };
}

export function body(endpoint: Endpoint, stream: boolean, model?: string): string {
  return JSON.stringify(
    endpoint === '/v1/messages'
      ? { model: model ?? 'claude-sonnet-4-5', max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }
      : {
          model: model ?? 'gpt-4o-mini',
          stream,
          ...(stream && { stream_options: { include_usage: true } }),
          messages: [{ role: 'user', content: 'hi' }],
        },
  );
}

export function headers(endpoint: Endpoint, key: string, requestId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...(endpoint === '/v1/messages'
      ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
      : { authorization: `Bearer ${key}` }),
  };
}

export function streamEndedWell(endpoint: Endpoint, text: string): boolean {
  return endpoint === '/v1/messages'
    ? text.includes('event: message_stop') && !text.includes('event: error')
    : text.includes('data: [DONE]') && !/"error"\s*:/.test(text);
}

export async function send(gateway: Gateway, endpoint: Endpoint, stream: boolean, requestId: string, model?: string) {
  try {
    const response = await fetch(`${gateway.harness.baseUrl}${endpoint}`, {
      method: 'POST',
      headers: headers(endpoint, gateway.key, requestId),
      body: body(endpoint, stream, model),
    });
    const text = await response.text().catch(() => '');
    const ok = response.ok && (!stream || streamEndedWell(endpoint, text));
    return { status: response.status, ok } satisfies Outcome;
  } catch {
    return { status: 0, ok: false } satisfies Outcome;
  }
}

/** Sends one request and hangs up after its first stream bytes arrive. */
export function sendAndDisconnect(gateway: Gateway, endpoint: Endpoint, requestId: string): Promise<Outcome> {
  const url = new URL(endpoint, gateway.harness.baseUrl);
  return new Promise((resolve) => {
    const request = http.request(
      {
        method: 'POST',
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        headers: headers(endpoint, gateway.key, requestId),
        agent: false,
      },
      (response) => {
        response.once('data', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, ok: false });
        });
        response.on('error', () => undefined);
      },
    );
    request.on('error', () => undefined);
    request.end(body(endpoint, true));
  });
}

/**
 * request.completed events and usage facts per request, from the SQLite event log, keyed by the id
 * the test sent as X-Request-Id (request.completed carries it as clientRequestId; a usage fact is
 * matched through the gateway's own request id). A request's usage is counted as the projections
 * count it: inside its event since `request.completed` version 2 (test/support/logged-events.ts).
 */
export function eventCounts(harness: Harness): {
  completed: Map<string, number>;
  usage: Map<string, number>;
  clientAborted: number;
} {
  const completed = new Map<string, number>();
  const usage = new Map<string, number>();
  let clientAborted = 0;
  const events = loggedEvents(harness.dataDirectory).flatMap((event) =>
    event.type === 'request.completed' || event.type === 'usage.recorded' ? [event] : [],
  );
  const sentIdOf = new Map<string, string>();
  for (const { type, body } of events) {
    if (type === 'request.completed') sentIdOf.set(body.requestId, body.clientRequestId ?? body.requestId);
  }
  for (const event of events) {
    const map = event.type === 'request.completed' ? completed : usage;
    const id = sentIdOf.get(event.body.requestId) ?? event.body.requestId;
    map.set(id, (map.get(id) ?? 0) + 1);
    if (event.type === 'request.completed' && event.body.clientAborted) clientAborted += 1;
  }
  return { completed, usage, clientAborted };
}

export async function settle(harness: Harness): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}
