/**
 * Signing out ends the session on every gateway node: the cookie signed out of through node A is
 * refused by node B (both are processes sharing Kafka and Redis), while the user's other session goes on
 * through both. A password change through one node ends the older sessions on the other too.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const USER = { email: 'cluster-signs-out@example.com', password: 'cluster signs-out 1' };

let nodeA: ClusterProcess;
let nodeB: ClusterProcess;
const processes: ClusterProcess[] = [];

async function post(node: ClusterProcess, route: string, body: unknown, cookie = '') {
  const response = await fetch(`${node.url}${route}`, {
    method: 'POST',
    headers: { origin: node.url!, 'content-type': 'application/json', ...(cookie && { cookie }) },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, cookie: (response.headers.get('set-cookie') ?? '').split(';')[0]! };
}

async function me(node: ClusterProcess, cookie: string): Promise<number> {
  const response = await fetch(`${node.url}/api/me`, { headers: { cookie } });
  await response.arrayBuffer();
  return response.status;
}

describe.skipIf(services === null)('cluster: sign-out and password change end sessions on every node', () => {
  beforeAll(async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-sessions-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(config, 'channels: []\n');
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `sessions${run}.`,
      CLICKHOUSE_DATABASE: `sessions${run}`,
      GATEWAY_SECRET: 'cluster-sessions-secret-0123456789abcdefghijklmnop',
      GATEWAY_CONFIG: config,
    };
    [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
    processes.push(nodeA!, nodeB!);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    if (services) await dropNamespace(services, `sessions${run}.`, `sessions${run}`);
  });

  it('refuses on node B a cookie signed out of on node A, and keeps the other session on both', async () => {
    const laptop = (await post(nodeA, '/api/auth/register', USER)).cookie;
    const phone = (await post(nodeB, '/api/auth/login', USER)).cookie;
    // Node B learns of the account through Redis; both cookies work on both nodes.
    await expect.poll(() => me(nodeB, laptop), { timeout: 5_000 }).toBe(200);
    expect([await me(nodeA, laptop), await me(nodeA, phone), await me(nodeB, phone)]).toEqual([200, 200, 200]);

    expect((await post(nodeA, '/api/auth/logout', {}, laptop)).status).toBe(204);
    expect(await me(nodeA, laptop)).toBe(401);
    // Node B reloads the account when Redis announces the change (milliseconds); it never accepts the
    // cookie again.
    await expect.poll(() => me(nodeB, laptop), { timeout: 5_000, interval: 50 }).toBe(401);
    expect([await me(nodeA, phone), await me(nodeB, phone)]).toEqual([200, 200]);
  });

  it('ends on node B the sessions issued before a password change made on node A', async () => {
    const before = (await post(nodeB, '/api/auth/login', USER)).cookie;
    await expect.poll(() => me(nodeA, before), { timeout: 5_000 }).toBe(200);
    const changed = await post(
      nodeA,
      '/api/auth/password',
      { current_password: USER.password, new_password: 'a brand new cluster password' },
      before,
    );
    expect(changed.status).toBe(200);
    await expect.poll(() => me(nodeB, before), { timeout: 5_000, interval: 50 }).toBe(401);
    await expect.poll(() => me(nodeB, changed.cookie), { timeout: 5_000, interval: 50 }).toBe(200);
  });
});
