/**
 * The hold a request takes before it is relayed sees the whole request, in the cluster: two gateway
 * nodes (separate processes, no projector) on the shared real Kafka and Redis, the requests spread
 * over both, the holds in Redis. As on the embedded store (test/controls/whole-request-holds.int.spec.ts),
 * an honest upstream bills what it receives, the earlier turns a `previous_response_id` continuation
 * adds and every choice of chat's `n`, and 20 concurrent requests overshoot a money budget, a token
 * quota or a TPM limit by at most the one request that crossed it.
 *
 * The counts checked are the upstream's bills and the answers: the key's listed totals come from the
 * projections, which cluster.int.spec.ts checks with a projector running.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import {
  COMPLETION_NANO,
  continuation,
  HONEST_MODEL,
  HONEST_PRICE_LINES,
  honestUpstream,
  manyChoices,
  PROMPT_NANO,
  TURN_BYTES,
  TURNS,
  turnInput,
} from '../support/honest-upstream.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const namespace = `holds${run}.`;
const database = `holds${run}`;

type Answer = { status: number; body: any };

describe.skipIf(services === null)('cluster: whole-request holds across two gateway nodes', () => {
  let upstream: ScriptedUpstream;
  const nodes: ClusterProcess[] = [];
  let client: ConsoleClient;
  /** the cost of each request the upstream answered, in nano-dollars, as it billed it */
  const billed: number[] = [];

  beforeAll(async () => {
    upstream = await startScriptedUpstream(honestUpstream(billed));
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-whole-request-holds-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      [
        'channels:',
        `  - {name: honest, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [${HONEST_MODEL}]}`,
        ...HONEST_PRICE_LINES,
        '',
      ].join('\n'),
    );
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: namespace,
      CLICKHOUSE_DATABASE: database,
      GATEWAY_SECRET: 'cluster-whole-request-holds-secret-0123456789abcdef',
      GATEWAY_CONFIG: config,
      AUTH_RATE_LIMIT_ATTEMPTS: '1000',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
      LOG_LEVEL: 'warn',
    };
    nodes.push(...(await Promise.all([startGatewayNode(environment), startGatewayNode(environment)])));
    client = new ConsoleClient(nodes[0]!.url!);
    await client.register(`whole-request-${run}@example.com`);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    if (services) await dropNamespace(services, namespace, database);
    await upstream?.close();
  });

  /** One request through node `index` of the two. */
  async function post(index: number, route: string, key: string, body: unknown): Promise<Answer> {
    const response = await fetch(`${nodes[index % nodes.length]!.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  /** `count` requests at once, alternating between the nodes. */
  async function concurrently(count: number, send: (index: number) => Promise<Answer>) {
    billed.length = 0;
    const answers = await Promise.all(Array.from({ length: count }, (_, index) => send(index)));
    const served = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    return { served, refused, billed: [...billed] };
  }

  /** A stored conversation of TURNS turns, made through both nodes with a key that holds nothing. */
  async function storedConversation(): Promise<{ key: string; previous: string }> {
    const { key } = await client.createToken('conversation');
    let previous: string | undefined;
    for (let turn = 0; turn < TURNS; turn++) {
      const answer = await post(turn, '/v1/responses', key, {
        model: HONEST_MODEL,
        input: turnInput(turn),
        max_output_tokens: 16,
        ...(previous && { previous_response_id: previous }),
      });
      expect(answer.status).toBe(200);
      previous = answer.body.id as string;
    }
    return { key, previous: previous! };
  }

  describe('continuations hold their earlier turns', () => {
    let previous: string;
    let unlimited: string;
    beforeAll(async () => {
      ({ key: unlimited, previous } = await storedConversation());
    }, 60_000);

    it('overshoot a key budget by at most one of 20 concurrent continuations', async () => {
      const probe = await concurrently(1, (index) => post(index, '/v1/responses', unlimited, continuation(previous)));
      const oneRequest = probe.billed[0]!;
      expect(oneRequest).toBeGreaterThan((TURNS * TURN_BYTES * PROMPT_NANO) / 4);
      const budget = Math.round(2.5 * oneRequest);
      const { key } = await client.createToken('continuations, budget', { budget_usd: budget / 1e9 });
      const {
        served,
        refused,
        billed: spent,
      } = await concurrently(20, (index) => post(index, '/v1/responses', key, continuation(previous)));
      expect(served.length).toBeGreaterThanOrEqual(2);
      expect(served.length).toBeLessThanOrEqual(3);
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(['budget_exceeded', 'budget_held_by_requests_in_flight']).toContain(answer.body.error.code);
      }
      const total = spent.reduce((sum, cost) => sum + cost, 0);
      expect(total).toBeLessThanOrEqual(budget + Math.max(...spent));
    }, 60_000);

    it('overshoot a token quota by at most one of 20 concurrent continuations', async () => {
      const oneRequest = Math.ceil((TURNS * TURN_BYTES) / 4);
      const quota = Math.round(2.5 * oneRequest);
      const { key } = await client.createToken('continuations, quota', { quota });
      const { served, refused } = await concurrently(20, (index) =>
        post(index, '/v1/responses', key, continuation(previous)),
      );
      const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
      const largest = Math.max(...served.map((answer) => answer.body.usage.total_tokens));
      expect(served.length).toBeGreaterThanOrEqual(1);
      expect(served.length).toBeLessThanOrEqual(3);
      expect(used).toBeLessThanOrEqual(quota + largest);
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(['insufficient_quota', 'quota_held_by_requests_in_flight']).toContain(answer.body.error.code);
      }
    }, 60_000);

    it('count the earlier turns against a TPM limit when the request starts', async () => {
      // A minute boundary in the middle would start a new window: begin early in one.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
      const oneRequest = Math.ceil((TURNS * TURN_BYTES) / 4);
      const { key } = await client.createToken('continuations, tpm', { tpm_limit: Math.round(2.5 * oneRequest) });
      const { served, refused } = await concurrently(20, (index) =>
        post(index, '/v1/responses', key, continuation(previous)),
      );
      expect(served.length).toBeGreaterThanOrEqual(1);
      expect(served.length).toBeLessThanOrEqual(3);
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        expect(answer.body.error.code).toBe('rate_limit_exceeded');
      }
    }, 90_000);
  });

  describe('chat `n` holds every choice', () => {
    it('overshoots a key budget by at most one of 20 concurrent requests for 128 choices', async () => {
      const oneRequest = 128 * 100 * COMPLETION_NANO;
      const budget = Math.round(2.5 * oneRequest);
      const { key } = await client.createToken('n, budget', { budget_usd: budget / 1e9 });
      const {
        served,
        refused,
        billed: spent,
      } = await concurrently(20, (index) => post(index, '/v1/chat/completions', key, manyChoices));
      expect(served.length).toBeGreaterThanOrEqual(2);
      expect(served.length).toBeLessThanOrEqual(3);
      expect(served[0]!.body.choices).toHaveLength(128);
      for (const answer of refused) expect(answer.status).toBe(429);
      const total = spent.reduce((sum, cost) => sum + cost, 0);
      expect(total).toBeLessThanOrEqual(budget + Math.max(...spent));
    });

    it('overshoots a token quota by at most one of 20 concurrent requests for 128 choices', async () => {
      const quota = Math.round(2.5 * 128 * 100);
      const { key } = await client.createToken('n, quota', { quota });
      const { served, refused } = await concurrently(20, (index) =>
        post(index, '/v1/chat/completions', key, manyChoices),
      );
      const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
      expect(served.length).toBeGreaterThanOrEqual(2);
      expect(served.length).toBeLessThanOrEqual(3);
      expect(used).toBeLessThanOrEqual(quota + Math.max(...served.map((answer) => answer.body.usage.total_tokens)));
      for (const answer of refused) expect(answer.status).toBe(429);
    });
  });
});
