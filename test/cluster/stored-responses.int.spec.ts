/**
 * Stored Responses across two gateway nodes (separate processes, no projector) on the shared real
 * Kafka and Redis: a response stored through node A is retrieved, continued and deleted through
 * node B right after (read-your-writes, as keys are: the storing node writes it through to Redis
 * before its reply ends), another account's id is a 404 on either node; and the Redis projection,
 * given the same events twice or in another order, holds the same documents.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import type { Redis } from '../../stores/cluster/redis-keys.ts';
import { RedisResponses } from '../../stores/cluster/redis-responses.ts';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);

async function keyOn(node: ClusterProcess, email: string): Promise<string> {
  const client = new ConsoleClient(node.url!);
  await client.register(email);
  return (await client.createToken('stored responses')).key;
}

const clientOf = (node: ClusterProcess, key: string) =>
  new OpenAI({ baseURL: `${node.url}/v1`, apiKey: key, maxRetries: 0 });

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe.skipIf(services === null)('cluster: stored responses across two gateway nodes', () => {
  let upstream: FakeUpstream;
  const processes: ClusterProcess[] = [];
  let nodeA: ClusterProcess;
  let nodeB: ClusterProcess;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-stored-responses-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      [
        'channels:',
        `  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}`,
        `  - {name: claude, type: anthropic, base_url: '${upstream.url}', api_key: upstream-key, models: [claude-sonnet-4-5]}`,
        '',
      ].join('\n'),
    );
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `stored${run}.`,
      CLICKHOUSE_DATABASE: `stored${run}`,
      GATEWAY_SECRET: 'cluster-stored-responses-secret-0123456789abcdefghij',
      GATEWAY_CONFIG: config,
      AUTH_RATE_LIMIT_ATTEMPTS: '1000',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
      LOG_LEVEL: 'warn',
    };
    [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
    processes.push(nodeA!, nodeB!);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    if (services) await dropNamespace(services, `stored${run}.`, `stored${run}`);
    await upstream?.close();
  });

  it('finds, continues and deletes through node B what node A stored the moment before', async () => {
    const aliceKey = await keyOn(nodeA, `alice-${run}@example.com`);
    const viaA = clientOf(nodeA, aliceKey);
    const viaB = clientOf(nodeB, aliceKey);
    for (let round = 0; round < 20; round++) {
      const stream = round % 2 === 1;
      const model = round % 4 < 2 ? 'gpt-4o-mini' : 'claude-sonnet-4-5';
      const first = stream
        ? await viaA.responses.stream({ model, input: `Question ${round}` }).finalResponse()
        : await viaA.responses.create({ model, input: `Question ${round}` });
      const retrieved = await viaB.responses.retrieve(first.id);
      expect(retrieved.output_text).toBe(first.output_text);
      upstream.reset();
      const second = await viaB.responses.create({ model, input: 'Go on', previous_response_id: first.id });
      const sent = JSON.stringify(upstream.requests[0]!.body);
      expect(sent).toContain(`Question ${round}`);
      expect(sent).toContain('Go on');
      expect((await viaA.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
      await viaB.responses.delete(first.id);
      expect(await failure(viaA.responses.retrieve(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
    }
  }, 120_000);

  it("answers another account's id with a 404 on either node", async () => {
    const aliceKey = await keyOn(nodeA, `alice2-${run}@example.com`);
    const bobKey = await keyOn(nodeB, `bob-${run}@example.com`);
    const mine = await clientOf(nodeA, aliceKey).responses.create({ model: 'gpt-4o-mini', input: 'Private' });
    for (const node of [nodeA, nodeB]) {
      const bob = clientOf(node, bobKey);
      expect(await failure(bob.responses.retrieve(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
      expect(await failure(bob.responses.delete(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
      const continued = await failure(
        bob.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: mine.id }),
      );
      expect(continued).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await clientOf(nodeB, aliceKey).responses.retrieve(mine.id)).id).toBe(mine.id);
  });
});

describe.skipIf(services === null)('cluster: the Redis stored-responses projection', () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = createClient({ url: services!.redisUrl }) as Redis;
    await redis.connect();
  });
  afterAll(async () => redis?.quit().catch(() => {}));

  const stored = (responseId: string, userId = 'u1') =>
    newEvent('response.stored', {
      responseId,
      userId,
      tokenId: 't1',
      requestId: `r-${responseId}`,
      previousResponseId: null,
      channelId: 'c1',
      channelType: 'openai',
      native: false,
      model: 'gpt-4o-mini',
      status: 'completed',
      createdAt: Math.floor(Date.now() / 1000),
      usage: { inputTokens: 1, outputTokens: 2 },
      inputItems: [{ type: 'message', role: 'user', content: `question ${responseId}` }],
      outputItems: [{ type: 'message', role: 'assistant', content: [] }],
      settings: { id: responseId },
    });

  async function projected(events: readonly GatewayEvent[], times: number) {
    const store = new RedisResponses(redis, `replay-${run}-${Math.random().toString(36).slice(2)}:`);
    for (let time = 0; time < times; time++) await store.apply(events);
    return Promise.all(['resp_a', 'resp_b', 'resp_c'].map((id) => store.find(id)));
  }

  it('holds the same documents after the events are applied twice; a late stored event does not undo a deletion', async () => {
    const log = [
      stored('resp_a'),
      stored('resp_b'),
      // An upstream that reuses an id: the first stored response keeps it.
      stored('resp_b', 'u2'),
      newEvent('response.deleted', { responseId: 'resp_a', userId: 'u1' }),
      // Another account cannot delete it.
      newEvent('response.deleted', { responseId: 'resp_b', userId: 'u2' }),
    ];
    const once = await projected(log, 1);
    expect(await projected(log, 2)).toEqual(once);
    expect(once[0]).toMatchObject({ responseId: 'resp_a', deleted: true, inputItems: [] });
    expect(once[1]).toMatchObject({ responseId: 'resp_b', userId: 'u1', deleted: false });
    expect(once[2]).toBeNull();
    const late = await projected([log[3]!, log[0]!], 1);
    expect(late[0]).toMatchObject({ deleted: true, inputItems: [] });
  });

  it('lets a stored response lapse after 30 days', async () => {
    const prefix = `lapse-${run}:`;
    await new RedisResponses(redis, prefix).apply([stored('resp_ttl')]);
    const ttl = await redis.pTTL(`${prefix}response:resp_ttl`);
    expect(ttl).toBeGreaterThan(29.9 * 24 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(30 * 24 * 3_600_000);
    await redis.del(`${prefix}response:resp_ttl`);
  });
});
