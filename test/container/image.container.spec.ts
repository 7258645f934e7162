/**
 * The project's image as an operator runs it (`docker run`, host networking so that the fake upstream
 * stays on loopback): it runs Node 24, starts as an unprivileged user and reports healthy, relays through both
 * endpoints, serves the built console, keeps its data on the volume when the container is replaced, and
 * on `docker stop` lets a stream in flight finish and exits 0 well inside the grace period.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { containerSuiteRuns, docker, dockerAsync, eventually, freePort, gatewayImage, statusOf } from './docker.ts';

const runs = containerSuiteRuns();
const run = `llm-gateway-image-test-${Date.now().toString(36)}`;
const volume = `${run}-data`;
const hello = [{ role: 'user', content: 'Say hello' }];
const containers: string[] = [];
let upstream: FakeUpstream;
let configFile: string;
let port: number;
let base: string;
let key: string;
let tokenId: string;

function startContainer(name: string): void {
  docker([
    'run',
    '--detach',
    '--name',
    name,
    '--network',
    'host',
    '--env',
    `PORT=${port}`,
    '--env',
    'HOST=127.0.0.1',
    '--env',
    'GATEWAY_SECRET=image-test-secret-0123456789abcdefghijklmnop',
    '--env',
    'GATEWAY_CONFIG=/etc/llm-gateway/gateway.yaml',
    '--env',
    'SHUTDOWN_GRACE_MS=20000',
    '--volume',
    `${volume}:/data`,
    '--volume',
    `${configFile}:/etc/llm-gateway/gateway.yaml:ro`,
    gatewayImage,
  ]);
  containers.push(name);
}

async function untilReady(name: string): Promise<void> {
  const status = await eventually(
    () => statusOf(`${base}/readyz`),
    (value) => value === 200,
    60_000,
  );
  if (status !== 200) throw new Error(`/readyz answered ${status}; logs:\n${docker(['logs', '--tail', '40', name])}`);
}

function chat(apiKey: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: hello, ...body }),
  });
}

describe.skipIf(!runs)('the gateway image', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const directory = mkdtempSync(path.join(tmpdir(), 'image-test-'));
    chmodSync(directory, 0o755);
    configFile = path.join(directory, 'gateway.yaml');
    writeFileSync(
      configFile,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}\n  - {name: anthropic, type: anthropic, base_url: '${upstream.url}', api_key: upstream-key, models: [claude-sonnet-4-5]}\n`,
      { mode: 0o644 },
    );
    docker(['volume', 'create', volume]);
    startContainer(`${run}-1`);
    await untilReady(`${run}-1`);
  }, 120_000);

  afterAll(async () => {
    for (const name of containers) docker(['rm', '--force', name]);
    docker(['volume', 'rm', '--force', volume]);
    await upstream?.close();
  });

  it('runs Node 24 as an unprivileged user under an init, and Docker reports it healthy', async () => {
    expect(docker(['exec', `${run}-1`, 'node', '--version'])).toMatch(/^v24\./);
    expect(docker(['exec', `${run}-1`, 'id', '-u'])).not.toBe('0');
    expect(docker(['exec', `${run}-1`, 'cat', '/proc/1/comm'])).toBe('tini');
    const health = await eventually(
      async () => docker(['inspect', '--format', '{{.State.Health.Status}}', `${run}-1`]),
      (value) => value === 'healthy',
      60_000,
    );
    expect(health).toBe('healthy');
  }, 90_000);

  it('relays a request through /v1/chat/completions and /v1/messages to the upstream', async () => {
    const account = new ConsoleClient(base);
    await account.register('image@example.com');
    ({ key, id: tokenId } = await account.createToken('image'));
    const openai = await chat(key);
    expect(openai.status).toBe(200);
    expect(((await openai.json()) as any).choices[0].message.content).toBeTruthy();
    const anthropic = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: hello }),
    });
    expect(anthropic.status).toBe(200);
    expect(((await anthropic.json()) as any).content[0].text).toBeTruthy();
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/messages']);
  });

  it('serves the built console and its assets', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const asset = html.match(/<script[^>]+src="([^"]+\.js)"/)?.[1];
    expect(asset, 'the built console references its bundle; the placeholder page does not').toBeTruthy();
    const script = await fetch(new URL(asset!, `${base}/`));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
  });

  it('keeps accounts, keys and usage on its volume when the container is replaced', async () => {
    docker(['rm', '--force', `${run}-1`]);
    startContainer(`${run}-2`);
    await untilReady(`${run}-2`);
    expect((await chat(key)).status).toBe(200);
    const account = new ConsoleClient(base);
    const login = await account.call('POST', '/api/auth/login', {
      email: 'image@example.com',
      password: 'correct horse battery',
    });
    expect(login.status).toBe(200);
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}&token_id=${tokenId}`;
    const overview = await eventually(
      async () => (await account.call('GET', `/api/usage/overview?${range}`)).body,
      (body) => body.totals?.calls === 3,
      // The call just made is projected by the embedded store's worker; minutes of load on 2 shared cores slow it.
      60_000,
    );
    expect(overview.totals.calls).toBe(3);
  }, 120_000);

  it('on docker stop, finishes a stream in flight and exits 0 within the grace period', async () => {
    upstream.next({ fixture: 'text', chunkDelayMs: 400 });
    const response = await chat(key, { stream: true });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const began = Date.now();
    const stopped = dockerAsync(['stop', '--time', '50', `${run}-2`], 90_000);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    await stopped;
    const elapsed = Date.now() - began;
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(docker(['inspect', '--format', '{{.State.ExitCode}}', `${run}-2`])).toBe('0');
    // Far inside the 50 s given: node drained the one stream and exited by itself, without SIGKILL.
    expect(elapsed).toBeLessThan(20_000);
    expect(docker(['logs', `${run}-2`])).toMatch(/shutting down/);
  }, 120_000);
});
