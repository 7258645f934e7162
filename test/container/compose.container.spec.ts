/**
 * The compose stack as docs/operations.md, "Deployment", starts it on a machine without a registry:
 * docker-compose.local.yml (docker-compose.yml on the stand-ins, host networking), every port moved off
 * the defaults so that it runs beside other servers. Kafka, ClickHouse, Redis, the projector and two
 * gateway nodes come up healthy; a key made on one node works on the other; the overview counts the
 * traffic; and `down` then `up` keeps accounts, keys and totals (the named volumes).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { containerSuiteRuns, docker, eventually, freePort, projectRoot, statusOf } from './docker.ts';

const runs = containerSuiteRuns();
const project = `llmgwtest${Date.now().toString(36)}`;
const hello = [{ role: 'user', content: 'Say hello' }];
const environment: Record<string, string> = {};
let upstream: FakeUpstream;
let nodeA: string;
let nodeB: string;
let key: string;
let tokenId: string;

/** `docker compose` where the plugin is installed, else the standalone docker-compose. */
const composeCommand = (() => {
  const plugin = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  return plugin.status === 0 ? ['docker', 'compose'] : ['docker-compose'];
})();

function compose(...args: string[]): string {
  const [command, ...prefix] = composeCommand;
  const result = spawnSync(command!, [...prefix, '-p', project, '-f', 'docker-compose.local.yml', ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, ...environment },
  });
  if (result.status !== 0) throw new Error(`compose ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

async function untilStackReady(): Promise<void> {
  for (const url of [nodeA, nodeB]) {
    const status = await eventually(
      () => statusOf(`${url}/readyz`),
      (value) => value === 200,
      180_000,
    );
    if (status !== 200) throw new Error(`${url}/readyz answered ${status}:\n${compose('logs', '--tail', '30')}`);
  }
  const projector = compose('ps', '-q', 'projector');
  const health = await eventually(
    async () => docker(['inspect', '--format', '{{.State.Health.Status}}', projector]),
    (value) => value === 'healthy',
    90_000,
  );
  if (health !== 'healthy') throw new Error(`projector ${health}:\n${compose('logs', '--tail', '30', 'projector')}`);
}

function chat(url: string, apiKey: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: hello }),
  });
}

async function overviewCalls(url: string): Promise<number | undefined> {
  const account = new ConsoleClient(url);
  await account.call('POST', '/api/auth/login', { email: 'compose@example.com', password: 'correct horse battery' });
  const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}&token_id=${tokenId}`;
  return (await account.call('GET', `/api/usage/overview?${range}`)).body?.totals?.calls;
}

describe.skipIf(!runs)('the compose stack (stand-ins, host networking)', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const directory = mkdtempSync(path.join(tmpdir(), 'compose-test-'));
    chmodSync(directory, 0o755);
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}\n`,
      { mode: 0o644 },
    );
    const names = ['KAFKA_PORT', 'KAFKA_CONTROLLER_PORT', 'CLICKHOUSE_HTTP_PORT', 'CLICKHOUSE_TCP_PORT', 'REDIS_PORT'];
    for (const name of [...names, 'GATEWAY_A_PORT', 'GATEWAY_B_PORT']) environment[name] = String(await freePort());
    Object.assign(environment, {
      GATEWAY_SECRET: 'compose-test-secret-0123456789abcdefghijklmnop',
      CLICKHOUSE_PASSWORD: 'compose-default-password',
      ANALYST_PASSWORD: 'compose-analyst-password',
      GATEWAY_CONFIG_FILE: config,
    });
    nodeA = `http://127.0.0.1:${environment.GATEWAY_A_PORT}`;
    nodeB = `http://127.0.0.1:${environment.GATEWAY_B_PORT}`;
    compose('up', '--detach', '--no-build');
    await untilStackReady();
  }, 360_000);

  afterAll(async () => {
    if (runs) compose('down', '--volumes', '--timeout', '60');
    await upstream?.close();
  }, 180_000);

  it('a key made on node A works on node B, and the overview counts the traffic of both', async () => {
    const account = new ConsoleClient(nodeA);
    await account.register('compose@example.com');
    ({ key, id: tokenId } = await account.createToken('compose'));
    for (let index = 0; index < 6; index++) expect((await chat(index % 2 ? nodeA : nodeB, key)).status).toBe(200);
    // The first consumer group of a fresh broker takes a while to form; then the projector catches up.
    const calls = await eventually(
      () => overviewCalls(nodeB),
      (value) => value === 6,
      150_000,
    );
    expect(calls).toBe(6);
  }, 200_000);

  it('down and up again keeps accounts, keys and totals', async () => {
    compose('down', '--timeout', '60');
    compose('up', '--detach', '--no-build');
    await untilStackReady();
    const calls = await eventually(
      () => overviewCalls(nodeA),
      (value) => value === 6,
      60_000,
    );
    expect(calls).toBe(6);
    expect((await chat(nodeB, key)).status).toBe(200);
    const after = await eventually(
      () => overviewCalls(nodeA),
      (value) => value === 7,
      90_000,
    );
    expect(after).toBe(7);
  }, 400_000);
});
