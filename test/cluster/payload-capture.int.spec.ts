/**
 * Payload capture in the cluster, on the real Kafka, ClickHouse and Redis: a key created with capture
 * on through node A is captured on node B (the setting reached B's lookups through Redis), the payload
 * travels through Kafka and the projector into ClickHouse, and node A reads it for the owner and an
 * admin, 404 for another account; secrets are scrubbed; revoking with `delete_payloads` drops it; and
 * with capture off nothing of the body is in any ClickHouse table.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { zstdDecompressSync } from 'node:zlib';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { payloadOf, relay } from '../support/captured-payloads.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode, startProjector } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const namespace = `capture${run}.`;
const database = `capture${run}`;
const UPSTREAM_KEY = 'cluster-upstream-key-0123456789abcdef';

describe.skipIf(services === null)('cluster: payload capture', () => {
  let upstream: FakeUpstream;
  const processes: ClusterProcess[] = [];
  let nodeA: ClusterProcess;
  let nodeB: ClusterProcess;
  let clickhouse: ClickHouseClient;
  let owner: ConsoleClient;
  let stranger: ConsoleClient;
  let admin: ConsoleClient;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'cluster-capture-')), 'gateway.yaml');
    writeFileSync(
      config,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: ${UPSTREAM_KEY}, models: [gpt-4o-mini]}\n`,
    );
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: namespace,
      CLICKHOUSE_DATABASE: database,
      GATEWAY_SECRET: 'cluster-payload-capture-secret-0123456789abcdefghij',
      GATEWAY_CONFIG: config,
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'admin-password-1',
      AUTH_RATE_LIMIT_ATTEMPTS: '1000',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
      PROJECTOR_WRITE_INTERVAL_MS: '50',
      LOG_LEVEL: 'warn',
    };
    nodeA = await startGatewayNode(environment);
    processes.push(nodeA);
    const started = await Promise.all([startGatewayNode(environment), startProjector(environment)]);
    nodeB = started[0];
    processes.push(...started);
    clickhouse = createClient({ url: services!.clickhouseUrl });
    owner = new ConsoleClient(nodeA.url!);
    await owner.register('owner@example.com');
    stranger = new ConsoleClient(nodeA.url!);
    await stranger.register('stranger@example.com');
    admin = new ConsoleClient(nodeA.url!);
    await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    await clickhouse?.close();
    if (services) await dropNamespace(services, namespace, database);
    await upstream?.close();
  });

  /** Whether `marker` is in any row of any table of the suite's database, payloads decompressed. */
  async function keptInClickHouse(marker: string): Promise<boolean> {
    const tables = (await (
      await clickhouse.query({ query: `SHOW TABLES FROM ${database}`, format: 'JSONEachRow' })
    ).json()) as Array<{ name: string }>;
    for (const { name } of tables) {
      const text = await (
        await clickhouse.query({ query: `SELECT * FROM ${database}.${name}`, format: 'TabSeparated' })
      ).text();
      if (text.includes(marker)) return true;
    }
    const data = (await (
      await clickhouse.query({ query: `SELECT data FROM ${database}.captured_payloads`, format: 'JSONEachRow' })
    ).json()) as Array<{ data: string }>;
    return data.some((row) => zstdDecompressSync(Buffer.from(row.data, 'base64')).toString('utf8').includes(marker));
  }

  it('captures on every node, reads for the owner and admins only, scrubbed, and drops on revoke', async () => {
    const { key, id } = await owner.createToken('captured', { payload_capture_days: 2 });
    const content = `CLUSTER-MARKER-ON ${key} ${UPSTREAM_KEY}`;
    const call = await relay(nodeB.url!, key, content, { stream: true });
    expect(call.status).toBe(200);
    const mine = await payloadOf(owner, call.requestId, 30_000);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ token_id: id, stream: true });
    expect(mine.body.request.json.messages[0].content).toBe('CLUSTER-MARKER-ON [redacted] [redacted]');
    expect(mine.body.reply.json.object).toBe('chat.completion');
    expect(JSON.stringify(mine.body)).not.toContain(UPSTREAM_KEY);
    expect(await keptInClickHouse('CLUSTER-MARKER-ON')).toBe(true);
    expect((await payloadOf(admin, call.requestId, 0)).status).toBe(200);
    expect((await payloadOf(stranger, call.requestId, 0)).status).toBe(404);

    expect((await owner.call('DELETE', `/api/tokens/${id}?delete_payloads=true`)).status).toBe(200);
    await expect.poll(async () => (await payloadOf(owner, call.requestId, 0)).status, { timeout: 30_000 }).toBe(404);
    await expect.poll(() => keptInClickHouse('CLUSTER-MARKER-ON'), { timeout: 30_000 }).toBe(false);
  });

  it('keeps nothing of a body in ClickHouse when capture is off', async () => {
    const { key } = await owner.createToken('plain');
    const call = await relay(nodeB.url!, key, 'CLUSTER-MARKER-OFF');
    expect(call.status).toBe(200);
    // The request's own row reaches ClickHouse: the body would have been projected by then too.
    await expect
      .poll(
        async () =>
          (await owner.call('GET', '/api/usage/logs?limit=50')).body.items?.some(
            (item: { request_id: string }) => item.request_id === call.requestId,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    // A captured call made after it has been projected: the uncaptured one had its time to arrive.
    const { key: capturedKey } = await owner.createToken('control', { payload_capture_days: 1 });
    const control = await relay(nodeB.url!, capturedKey, 'CLUSTER-MARKER-CONTROL');
    expect((await payloadOf(owner, control.requestId, 30_000)).status).toBe(200);
    expect((await payloadOf(owner, call.requestId, 0)).status).toBe(404);
    expect(await keptInClickHouse('CLUSTER-MARKER-OFF')).toBe(false);
    expect(await keptInClickHouse('CLUSTER-MARKER-CONTROL')).toBe(true);
  });
});
