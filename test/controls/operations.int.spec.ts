/**
 * Operations: Prometheus metrics (and their optional bearer token), and a graceful shutdown that lets
 * a stream in flight finish within SHUTDOWN_GRACE_MS and cuts it past the deadline.
 */
import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

async function newKey(harness: Harness, email: string): Promise<string> {
  const consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register(email);
  return (await consoleClient.createToken('ops')).key;
}

function chat(harness: Harness, key: string, stream = false) {
  return fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'Say hello' }] }),
  });
}

describe('GET /metrics', () => {
  let harness: Harness;
  let key: string;
  beforeAll(async () => {
    harness = await startHarness({ environment: { METRICS_TOKEN: 'metrics-token-for-tests' } });
    key = await newKey(harness, 'metrics@example.com');
  });
  afterAll(async () => harness.stop());

  it('needs the METRICS_TOKEN when one is set', async () => {
    expect((await fetch(`${harness.baseUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${harness.baseUrl}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('counts requests, latency, time to first token, tokens and upstream errors by label', async () => {
    expect((await chat(harness, key)).status).toBe(200);
    harness.upstream.next('error-503');
    expect((await chat(harness, key)).status).toBe(503);
    await (await chat(harness, key, true)).text();
    const response = await fetch(`${harness.baseUrl}/metrics`, {
      headers: { authorization: 'Bearer metrics-token-for-tests' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    const labels = 'endpoint="chat.completions",model="gpt-4o-mini",channel="fake-openai"';
    expect(text).toContain(`gateway_requests_total{${labels},status="200"} 2`);
    expect(text).toContain(`gateway_requests_total{${labels},status="503"} 1`);
    expect(text).toMatch(new RegExp(`gateway_request_duration_seconds_count\\{${labels},status="200"\\} 2`));
    expect(text).toMatch(
      new RegExp(`gateway_time_to_first_token_seconds_bucket\\{le="[^"]+",${labels},status="200"\\}`),
    );
    expect(text).toMatch(new RegExp(`gateway_tokens_total\\{${labels},kind="prompt"\\} \\d+`));
    expect(text).toMatch(new RegExp(`gateway_tokens_total\\{${labels},kind="completion"\\} \\d+`));
    // The price database's gpt-4o-mini (0.15 and 0.60 USD per million): fixture usage 21 + 10 twice
    // (the plain reply and the stream's, 23 + 12), the failed request nothing.
    const cost = (21 * 150 + 10 * 600 + 23 * 150 + 12 * 600) / 1e9;
    expect(text).toContain(`gateway_cost_usd_total{${labels}} ${cost}`);
    expect(text).toContain('gateway_upstream_errors_total{channel="fake-openai",kind="server_error"} 1');
    expect(text).toMatch(/gateway_event_queue_depth \d+/);
    expect(text).toMatch(/gateway_outbox_depth 0/);
    expect(text).toMatch(/gateway_projector_lag_events \d+/);
  });

  it('keeps made-up model names out of the labels', async () => {
    await chat(harness, key).then((response) => response.text());
    await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'made-up-model-123', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await (
      await fetch(`${harness.baseUrl}/metrics`, { headers: { authorization: 'Bearer metrics-token-for-tests' } })
    ).text();
    expect(text).not.toContain('made-up-model-123');
    expect(text).toContain('gateway_requests_total{endpoint="chat.completions",model="-",channel="-",status="404"} 1');
  });
});

/** The `connection` header of a relayed reply, read with node:http (fetch hides hop-by-hop headers). */
function connectionHeaderOf(harness: Harness, key: string, stream: boolean): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.headers.connection));
    });
    request.on('error', reject);
    request.end(JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] }));
  });
}

describe('graceful shutdown', () => {
  it('tells clients to close the connection while draining, on replies and streams alike', async () => {
    const harness = await startHarness();
    const key = await newKey(harness, 'draining@example.com');
    expect(await connectionHeaderOf(harness, key, true)).toBe('keep-alive');
    harness.runtime.lifecycle.draining = true;
    expect(await connectionHeaderOf(harness, key, false)).toBe('close');
    expect(await connectionHeaderOf(harness, key, true)).toBe('close');
    harness.runtime.lifecycle.draining = false;
    await harness.stop();
  });

  it('lets a stream in flight finish, refuses new connections, then closes', async () => {
    const harness = await startHarness();
    const key = await newKey(harness, 'shutdown@example.com');
    harness.upstream.next({ fixture: 'text-stream', chunkDelayMs: 120 });
    const response = await chat(harness, key, true);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    const closing = harness.runtime.close(10_000);
    let text = new TextDecoder().decode(first.value);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    await closing;
    await expect(fetch(`${harness.baseUrl}/healthz`)).rejects.toThrow();
    await harness.upstream.close();
    rmSync(harness.dataDirectory, { recursive: true, force: true });
  });

  it('cuts a stream still running when the grace period ends, and still records the request', async () => {
    const harness = await startHarness();
    const key = await newKey(harness, 'deadline@example.com');
    harness.upstream.next({ fixture: 'text-stream', chunkDelayMs: 1_000 });
    const response = await chat(harness, key, true);
    const reader = response.body!.getReader();
    await reader.read();
    const started = performance.now();
    await harness.runtime.close(300);
    expect(performance.now() - started).toBeLessThan(3_000);
    await reader.read().then(
      () => reader.cancel(),
      () => undefined,
    );
    await harness.upstream.close();
    const requestId = response.headers.get('x-request-id');
    const recorded = loggedEvents(harness.dataDirectory).find(
      (event) => event.type === 'request.completed' && event.body.requestId === requestId,
    );
    expect(recorded).toBeDefined();
    expect(recorded!.type === 'request.completed' && recorded!.body.clientAborted).toBe(true);
    rmSync(harness.dataDirectory, { recursive: true, force: true });
  });
});
