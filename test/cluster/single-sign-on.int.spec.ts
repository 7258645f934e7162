/**
 * Single sign-on on the cluster store, two gateway nodes behind one public origin and a real OpenID
 * provider (oidc-provider) on loopback: a sign-in started on one node finishes on the other, and first
 * sign-ins of one email at the same moment through both nodes make one account (the email is claimed
 * in Redis before the account's event goes to Kafka).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import {
  startTestProvider,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  type TestAccount,
  type TestProvider,
} from '../support/oidc-test-provider.ts';
import { firstSignInsAtOnce, signInWithSso } from '../support/sso-scenarios.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const PUBLIC_URL = 'http://gateway.test';
const accounts: Record<string, TestAccount> = {
  twin: { email: `twin-0-${run}@example.com`, email_verified: true },
};

let provider: TestProvider;
let nodeA: ClusterProcess;
let nodeB: ClusterProcess;
const processes: ClusterProcess[] = [];

describe.skipIf(services === null)('cluster: single sign-on across two gateway nodes', () => {
  beforeAll(async () => {
    provider = await startTestProvider({ redirectUris: [`${PUBLIC_URL}/api/auth/sso/callback`], accounts });
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `sso${run}.`,
      CLICKHOUSE_DATABASE: `sso${run}`,
      GATEWAY_SECRET: 'cluster-sso-secret-0123456789abcdefghijklmnopqrstu',
      AUTH_RATE_LIMIT_ATTEMPTS: '1000',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: `root-${run}@example.com`,
      ADMIN_PASSWORD: 'admin-password-1',
      PUBLIC_URL,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT_ID,
      OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
    };
    [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
    processes.push(nodeA!, nodeB!);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    if (services) await dropNamespace(services, `sso${run}.`, `sso${run}`);
    await provider?.stop();
  });

  it('makes one account of first sign-ins of one email at the same moment through both nodes', async () => {
    const admin = new ConsoleClient(nodeA.url!);
    const credentials = { email: `root-${run}@example.com`, password: 'admin-password-1' };
    // State-changing calls name the site, which is the public origin in front of both nodes.
    expect((await admin.call('POST', '/api/auth/login', credentials, { origin: PUBLIC_URL })).status).toBe(200);
    for (let round = 0; round < 3; round++) {
      const email = `twin-${round}-${run}@example.com`;
      accounts.twin!.email = email;
      const finished = await firstSignInsAtOnce([nodeA.url!, nodeB.url!], 'twin', 6);
      expect(finished.map((one) => one.location)).toEqual(Array(6).fill('/overview'));
      expect(new Set(finished.map((one) => one.userId)).size).toBe(1);
      const { body } = await admin.call('GET', '/api/users');
      expect(body.items.filter((user: { email: string }) => user.email === email)).toHaveLength(1);
    }
  });

  it('signs the ADMIN_EMAIL account in on either node, matched by its email', async () => {
    accounts.root = { email: `root-${run}@example.com`, email_verified: true };
    const [onA, onB] = [await signInWithSso(nodeA.url!, 'root'), await signInWithSso(nodeB.url!, 'root')];
    expect(onA).toMatchObject({ location: '/overview', role: 'admin' });
    expect(onB.userId).toBe(onA.userId);
  });
});
