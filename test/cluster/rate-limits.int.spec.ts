/**
 * Per-key RPM and TPM limits held across two gateway nodes (processes) sharing Redis: the budget of a
 * minute is spent through both nodes together, and either node refuses once it is gone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);

let upstream: FakeUpstream;
let nodeA: ClusterProcess;
let nodeB: ClusterProcess;
let consoleA: ConsoleClient;
const processes: ClusterProcess[] = [];

async function chat(node: ClusterProcess, key: string) {
  const response = await fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Limits count per clock minute: start a test early in a minute so it does not straddle two. */
async function earlyInAMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}

describe.skipIf(services === null)('cluster: rate limits held across two gateway nodes', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-limits-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}\n`,
    );
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `limits${run}.`,
      CLICKHOUSE_DATABASE: `limits${run}`,
      GATEWAY_SECRET: 'cluster-limits-secret-0123456789abcdefghijklmnop',
      GATEWAY_CONFIG: config,
      ALLOW_PRIVATE_UPSTREAMS: 'true',
    };
    [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
    processes.push(nodeA!, nodeB!);
    consoleA = new ConsoleClient(nodeA!.url!);
    await consoleA.register('limits@example.com');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    if (services) await dropNamespace(services, `limits${run}.`, `limits${run}`);
    await upstream?.close();
  });

  it('spends one RPM budget through both nodes, then both refuse with 429 and retry-after', async () => {
    await earlyInAMinute();
    const { key } = await consoleA.createToken('rpm', { rpm_limit: 4 });
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    for (let index = 0; index < 4; index++) {
      const answer = await chat(index % 2 === 0 ? nodeA : nodeB, key);
      statuses.push(answer.status);
      remaining.push(answer.headers.get('x-ratelimit-remaining-requests'));
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(remaining).toEqual(['3', '2', '1', '0']);
    for (const node of [nodeA, nodeB]) {
      const refused = await chat(node, key);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limit_exceeded');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('4');
    }
    expect(
      upstream.requests.filter((request) => request.headers['authorization'] === 'Bearer upstream-key').length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('counts the tokens used through node A against a request through node B', async () => {
    await earlyInAMinute();
    const { key } = await consoleA.createToken('tpm', { tpm_limit: 25 });
    expect((await chat(nodeA, key)).status).toBe(200); // 31 tokens: over the budget once counted
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await chat(nodeB, key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('25 tokens per minute');
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
  });
});
