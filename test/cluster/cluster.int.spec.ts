/**
 * The cluster against real Kafka, ClickHouse and Redis: two gateway nodes and a projector as separate
 * processes. Read-your-writes and revocation across nodes, ClickHouse totals equal to the requests
 * sent, the projector killed with SIGKILL mid-stream five times (key usage in Redis exact too), and Kafka stopped (FAULT_OUTAGE_MS, 5 s) under
 * traffic, with no failed request and no lost or double-counted event.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createClient } from '@clickhouse/client';
import OpenAI from 'openai';
import { createClient as createRedisClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode, startProjector } from './cluster-processes.ts';
import {
  type ClusterServices,
  canStopServers,
  projectorRestartSettings,
  resolveClusterServices,
  startServer,
  stopServer,
} from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const namespace = `test${run}.`;
const database = `test${run}`;

let upstream: FakeUpstream;
let environment: Record<string, string>;
let nodeA: ClusterProcess;
let nodeB: ClusterProcess;
let projector: ClusterProcess;
let consoleA: ConsoleClient;
let key: string;
let tokenId: string;
const processes: ClusterProcess[] = [];
const hello = [{ role: 'user' as const, content: 'hi' }];

const clickhouse = () => createClient({ url: services!.clickhouseUrl });

/** How long Kafka stays stopped (5 s): long enough for every request of it to wait in an outbox. */
const KAFKA_OUTAGE_MS = Number(process.env['FAULT_OUTAGE_MS'] ?? 5_000);

async function clickhouseTotals(): Promise<{ calls: number; prompt: number; completion: number }> {
  const client = clickhouse();
  try {
    const rows = (await (
      await client.query({
        query: `SELECT (SELECT count() FROM ${database}.requests FINAL WHERE token_id = '${tokenId}') AS calls,
          (SELECT sum(prompt_tokens) FROM ${database}.usage FINAL WHERE token_id = '${tokenId}') AS prompt,
          (SELECT sum(completion_tokens) FROM ${database}.usage FINAL WHERE token_id = '${tokenId}') AS completion`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<Record<string, string>>;
    return {
      calls: Number(rows[0]!['calls']),
      prompt: Number(rows[0]!['prompt']),
      completion: Number(rows[0]!['completion']),
    };
  } finally {
    await client.close();
  }
}

/** The key's usage as the gateway nodes read it: tokens counted in Redis by the projector. */
async function redisUsed(): Promise<number> {
  const redis = createRedisClient({ url: services!.redisUrl });
  await redis.connect();
  try {
    return Number((await redis.hGet(`${namespace}usage:${tokenId}`, 'used')) ?? 0);
  } finally {
    await redis.quit();
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = await read();
  }
  return value;
}

function openaiOn(node: ClusterProcess, apiKey = key) {
  return new OpenAI({ baseURL: `${node.url}/v1`, apiKey, maxRetries: 0 });
}

/** One request through a node, alternating endpoints and streaming; returns its exact upstream usage. */
async function sendOne(node: ClusterProcess, index: number): Promise<{ prompt: number; completion: number }> {
  if (index % 2 === 0) {
    await openaiOn(node).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
    return { prompt: 21, completion: 10 };
  }
  const anthropic = new Anthropic({ baseURL: node.url!, apiKey: key, maxRetries: 0 });
  await anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: hello }).finalMessage();
  return { prompt: 16, completion: 13 };
}

const expected = { calls: 0, prompt: 0, completion: 0 };
function tally(usage: { prompt: number; completion: number }): void {
  expected.calls++;
  expected.prompt += usage.prompt;
  expected.completion += usage.completion;
}

describe.skipIf(services === null)(
  'cluster: two gateway nodes and a projector on real Kafka, ClickHouse and Redis',
  () => {
    beforeAll(async () => {
      upstream = await startFakeUpstream();
      const directory = mkdtempSync(path.join(tmpdir(), 'cluster-test-'));
      const config = path.join(directory, 'gateway.yaml');
      writeFileSync(
        config,
        `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}\n  - {name: anthropic, type: anthropic, base_url: '${upstream.url}', api_key: upstream-key, models: [claude-sonnet-4-5]}\n`,
      );
      environment = {
        KAFKA_BROKERS: services!.kafkaBrokers,
        CLICKHOUSE_URL: services!.clickhouseUrl,
        REDIS_URL: services!.redisUrl,
        CLUSTER_NAMESPACE: namespace,
        CLICKHOUSE_DATABASE: database,
        GATEWAY_SECRET: 'cluster-test-secret-0123456789abcdefghijklmnop',
        GATEWAY_CONFIG: config,
        ...projectorRestartSettings(services!),
      };
      projector = await startProjector(environment);
      processes.push(projector);
      [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
      processes.push(nodeA!, nodeB!);
      consoleA = new ConsoleClient(nodeA!.url!);
      await consoleA.register('cluster@example.com');
      const created = await consoleA.createToken('cluster');
      key = created.key;
      tokenId = created.id;
      // A brand-new broker takes a while to form the first consumer group (tens of seconds on a fresh
      // machine): wait until a warm-up request has reached ClickHouse, so the tests time only the pipeline.
      tally(await sendOne(nodeA!, 0));
      const warmed = await eventually(clickhouseTotals, (value) => value.calls >= 1, 150_000);
      if (warmed.calls < 1)
        throw new Error(`the projector consumed nothing in 150 s:\n${projector.output.join('').slice(-2000)}`);
    }, 240_000);

    afterAll(async () => {
      await Promise.all(processes.map((process) => process.kill('SIGKILL')));
      if (services) await dropNamespace(services, namespace, database);
      await upstream?.close();
    });

    it('a key created through node A works on node B at once', async () => {
      const fresh = await consoleA.createToken('fresh');
      const completion = await openaiOn(nodeB, fresh.key).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: hello,
      });
      expect(completion.choices[0]!.message.content).toBeTruthy();
    });

    it('counts traffic through both nodes and both endpoints exactly, in ClickHouse and the overview', async () => {
      for (let index = 0; index < 20; index++) tally(await sendOne(index % 2 === 0 ? nodeA : nodeB, index));
      const totals = await eventually(
        clickhouseTotals,
        (value) => value.calls >= expected.calls && value.completion >= expected.completion,
        20_000,
      );
      expect(totals).toEqual(expected);
      const consoleB = new ConsoleClient(nodeB.url!);
      await consoleB.call('POST', '/api/auth/login', {
        email: 'cluster@example.com',
        password: 'correct horse battery',
      });
      const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}&token_id=${tokenId}`;
      const overview = await eventually(
        async () => (await consoleB.call('GET', `/api/usage/overview?${range}`)).body,
        (body) => body.totals?.calls === expected.calls,
        10_000,
      );
      expect(overview.totals).toMatchObject({
        calls: expected.calls,
        prompt_tokens: expected.prompt,
        completion_tokens: expected.completion,
      });
    });

    it('answers every example query of docs/analytics.md, as the read-only analyst user', async () => {
      const documentation = readFileSync(path.join(import.meta.dirname, '../../docs/analytics.md'), 'utf8');
      // The attribution section's queries need attributed traffic: attribution-stores-agree.int.spec.ts runs them.
      const general = documentation.slice(0, documentation.indexOf('## Attribution'));
      const queries = [...general.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) =>
        match[1]!.replaceAll('gateway.', `${database}.`),
      );
      expect(queries.length).toBeGreaterThanOrEqual(5);
      const analystCredentials =
        services!.source !== 'environment'
          ? { username: 'analyst', password: process.env.ANALYST_PASSWORD ?? 'analyst' }
          : {};
      const analyst = createClient({ url: services!.clickhouseUrl, ...analystCredentials });
      try {
        const results = [];
        for (const query of queries)
          results.push(
            (await (await analyst.query({ query, format: 'JSONEachRow' })).json()) as Array<Record<string, unknown>>,
          );
        for (const rows of results) expect(rows.length).toBeGreaterThan(0);
        // Top keys this week: our key, with exactly the tokens sent through it.
        const ours = results[0]!.find((row) => row['token_id'] === tokenId);
        expect(Number(ours?.['tokens'])).toBe(expected.prompt + expected.completion);
        if (services!.source !== 'environment') {
          await expect(
            analyst.command({ query: `CREATE TABLE ${database}.intruder (a UInt8) ENGINE = Memory` }),
          ).rejects.toThrow(/readonly/i);
        }
      } finally {
        await analyst.close();
      }
    });

    it('survives the projector killed with SIGKILL five times under traffic, totals still exact', async () => {
      let stop = false;
      const traffic = (async () => {
        for (let index = 0; !stop; index++) {
          tally(await sendOne(index % 2 === 0 ? nodeB : nodeA, index));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      for (let kill = 0; kill < 5; kill++) {
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
        await projector.kill('SIGKILL');
        projector = await startProjector(environment);
        processes.push(projector);
      }
      stop = true;
      await traffic;
      const totals = await eventually(
        clickhouseTotals,
        (value) => value.calls >= expected.calls && value.completion >= expected.completion,
        30_000,
      );
      expect(totals).toEqual(expected);
      // Key usage in Redis too: each request counted once across the batches applied again after a kill.
      const tokens = expected.prompt + expected.completion;
      expect(await eventually(redisUsed, (used) => used >= tokens, 30_000)).toBe(tokens);
    }, 180_000);

    it.skipIf(!canStopServers(services))(
      `keeps serving while Kafka is stopped for ${KAFKA_OUTAGE_MS / 1000} s under traffic, then delivers every event`,
      async () => {
        await stopServer(services!, 'kafka');
        const started = Date.now();
        const expectedBefore = expected.calls;
        let failures = 0;
        let countedDuring = Number.POSITIVE_INFINITY;
        try {
          for (let index = 0; Date.now() - started < KAFKA_OUTAGE_MS; index++) {
            try {
              tally(await sendOne(index % 2 === 0 ? nodeA : nodeB, index));
            } catch {
              failures++;
            }
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          // What was answered during the outage waits in the nodes' outboxes: none of it is counted yet.
          countedDuring = (await clickhouseTotals()).calls;
        } finally {
          await startServer(services!, 'kafka');
        }
        expect(failures).toBe(0);
        expect(expected.calls - expectedBefore).toBeGreaterThan(10);
        expect(countedDuring).toBeLessThanOrEqual(expectedBefore);
        const totals = await eventually(
          clickhouseTotals,
          (value) => value.calls >= expected.calls && value.completion >= expected.completion,
          90_000,
        );
        expect(totals).toEqual(expected);
      },
      240_000,
    );

    it('refuses on node B within 1 s a key revoked through node A', async () => {
      const doomed = await consoleA.createToken('doomed');
      await openaiOn(nodeB, doomed.key).chat.completions.create({ model: 'gpt-4o-mini', messages: hello });
      await consoleA.call('DELETE', `/api/tokens/${doomed.id}`);
      const revokedAt = Date.now();
      const refused = await eventually(
        () =>
          openaiOn(nodeB, doomed.key)
            .chat.completions.create({ model: 'gpt-4o-mini', messages: hello })
            .then(
              () => null,
              (error) => error,
            ),
        (error) => error !== null,
        1_000,
      );
      expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(Date.now() - revokedAt).toBeLessThan(1_000);
    });
  },
);
