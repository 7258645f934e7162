/**
 * Consistency across two gateway nodes (separate processes) sharing real Kafka and Redis:
 * read-your-writes for new keys under load (a key created through node A is used through node B at
 * once, 1,000 times, and never refused), a key's token quota held once across both nodes, one
 * account per email and at least one enabled admin under concurrent commands through both nodes (and
 * both nodes seeding ADMIN_EMAIL at once at start).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Admin, demoteEachOther, registerOneEmailConcurrently } from '../support/invariant-scenarios.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode } from './cluster-processes.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);

let upstream: FakeUpstream;
let nodeA: ClusterProcess;
let nodeB: ClusterProcess;
const processes: ClusterProcess[] = [];

async function chat(node: ClusterProcess, key: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

// The fake upstream answers gpt-4o-mini with 21 prompt and 10 completion tokens: 41,000 nano-dollars
// at the config's prices; with max_tokens 20 a request holds about 60,000.
const ONE_REQUEST_NANO = 21 * 1000 + 10 * 2000;

async function budgetChat(
  node: ClusterProcess,
  key: string,
  model = 'gpt-4o-mini',
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${node.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Refused for the budget, or (a loaded machine) because the shared ledger did not answer in time: never let through unheld. */
function expectBudgetRefusals(answers: Array<{ status: number; body: any }>): void {
  for (const refused of answers.filter((answer) => answer.status !== 200)) {
    expect([429, 503]).toContain(refused.status);
    expect(['budget_exceeded', 'budget_held_by_requests_in_flight', 'budget_unavailable']).toContain(
      refused.body.error.code,
    );
  }
}

async function signedIn(node: ClusterProcess, email: string): Promise<ConsoleClient> {
  const client = new ConsoleClient(node.url!);
  await client.register(email);
  return client;
}

describe.skipIf(services === null)('cluster: consistency across two gateway nodes', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-consistency-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini, gpt-mapped]}\nprices:\n  gpt-4o-mini: {input_per_million: 1, output_per_million: 2}\n`,
    );
    const environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `consistency${run}.`,
      CLICKHOUSE_DATABASE: `consistency${run}`,
      GATEWAY_SECRET: 'cluster-consistency-secret-0123456789abcdefghijklmnop',
      GATEWAY_CONFIG: config,
      AUTH_RATE_LIMIT_ATTEMPTS: '1000',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: `root-${run}@example.com`,
      ADMIN_PASSWORD: 'admin-password-1',
    };
    [nodeA, nodeB] = await Promise.all([startGatewayNode(environment), startGatewayNode(environment)]);
    processes.push(nodeA!, nodeB!);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    if (services) await dropNamespace(services, `consistency${run}.`, `consistency${run}`);
    await upstream?.close();
  });

  it('uses 1,000 keys through node B the moment node A created them, under load, with 0 refusals', async () => {
    const workers = 20;
    const perWorker = 50;
    // Traffic on node B meanwhile: its change messages and their reloads queue behind requests, as in
    // production, which is when a memory-only lookup refused new keys.
    const loadClient = await signedIn(nodeA, `load-${run}@example.com`);
    const { key: loadKey } = await loadClient.createToken('load');
    let loading = true;
    const load = Array.from({ length: 16 }, async () => {
      while (loading) await chat(nodeB, loadKey);
    });
    const refusals: string[] = [];
    let used = 0;
    try {
      // One at a time: a node checks a few passwords per address at once and refuses the rest (429).
      const clients: ConsoleClient[] = [];
      for (let worker = 0; worker < workers; worker++) {
        clients.push(await signedIn(nodeA, `ryw-${worker}-${run}@example.com`));
      }
      await Promise.all(
        clients.map(async (client) => {
          for (let index = 0; index < perWorker; index++) {
            const { key } = await client.createToken(`fresh ${index}`);
            const answer = await chat(nodeB, key);
            used++;
            if (answer.status !== 200) refusals.push(`${answer.status} ${answer.body?.error?.message}`);
          }
        }),
      );
    } finally {
      loading = false;
      await Promise.all(load);
    }
    expect(used).toBe(workers * perWorker);
    expect(refusals).toEqual([]);
  }, 120_000);

  it('lets 200 concurrent requests through both nodes on a quota of 30 use at most the quota plus one request', async () => {
    const client = await signedIn(nodeA, `quota-${run}@example.com`);
    const { key } = await client.createToken('quota 30', { quota: 30 });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, index) => chat(index % 2 ? nodeB : nodeA, key)));
    const served = answers.filter((answer) => answer.status === 200);
    expect(served.length).toBeGreaterThanOrEqual(1);
    const used = served.reduce((sum, answer) => sum + answer.body.usage.total_tokens, 0);
    expect(used).toBeLessThanOrEqual(30 + served[0]!.body.usage.total_tokens);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(['insufficient_quota', 'quota_held_by_requests_in_flight']).toContain(refused.body.error.code);
    }
    // Settled usage counts at once on the other node too, before any projector has run.
    expect((await chat(nodeB, key)).status).toBe(429);
    expect((await chat(nodeA, key)).status).toBe(429);
  });

  it('answers at most 4 of 20 concurrent requests through both nodes on a budget with room for 3', async () => {
    const client = await signedIn(nodeA, `budget3-${run}@example.com`);
    const { key } = await client.createToken('room for 3', { budget_usd: (3 * ONE_REQUEST_NANO) / 1e9 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => budgetChat(index % 2 ? nodeB : nodeA, key)),
    );
    const served = answers.filter((answer) => answer.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(4);
    expectBudgetRefusals(answers);
  });

  it('lets 200 concurrent requests through both nodes overshoot a budget by at most one request’s cost', async () => {
    const client = await signedIn(nodeA, `budget200-${run}@example.com`);
    const budgetNano = 1_000_000;
    const { key } = await client.createToken('one milli-dollar', {
      budget_usd: budgetNano / 1e9,
      budget_period: 'daily',
    });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) => budgetChat(index % 2 ? nodeB : nodeA, key)),
    );
    let served = answers.filter((answer) => answer.status === 200).length;
    expectBudgetRefusals(answers);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served * ONE_REQUEST_NANO).toBeLessThanOrEqual(budgetNano + ONE_REQUEST_NANO);
    // Requests refused only for holds in flight left room: spend it, one at a time through either node.
    for (let index = 0; index < 40; index++) {
      const answer = await budgetChat(index % 2 ? nodeB : nodeA, key);
      if (answer.status !== 200) {
        // Each answer came after its own settlement (request-holds.ts): only a spent budget stops a client in a row.
        expect(answer.body.error?.code).toBe('budget_exceeded');
        break;
      }
      served++;
    }
    expect(served * ONE_REQUEST_NANO).toBeGreaterThanOrEqual(budgetNano);
    expect(served * ONE_REQUEST_NANO).toBeLessThanOrEqual(budgetNano + ONE_REQUEST_NANO);
    // Settled spend refuses at once on either node, before any projector has run.
    expect((await budgetChat(nodeB, key)).body.error?.code).toBe('budget_exceeded');
    expect((await budgetChat(nodeA, key)).body.error?.code).toBe('budget_exceeded');
  }, 60_000);

  it('enforces a key changed through node A on the very next request through node B', async () => {
    const client = await signedIn(nodeA, `edit-${run}@example.com`);
    for (let round = 0; round < 20; round++) {
      const { key, id } = await client.createToken(`edited ${round}`);
      expect((await budgetChat(nodeB, key)).status).toBe(200);
      await client.call('PATCH', `/api/tokens/${id}`, { models: ['gpt-mapped'] });
      expect((await budgetChat(nodeB, key)).body.error?.code).toBe('model_not_allowed');
      await client.call('PATCH', `/api/tokens/${id}`, { models: null, budget_usd: 0 });
      expect((await budgetChat(nodeB, key)).body.error?.code).toBe('budget_exceeded');
      await client.call('PATCH', `/api/tokens/${id}`, { budget_usd: 1 });
      expect((await budgetChat(nodeB, key)).status).toBe(200);
    }
  });

  async function signInAdmin(node: ClusterProcess): Promise<Admin> {
    const client = new ConsoleClient(node.url!);
    const { status, body } = await client.call('POST', '/api/auth/login', {
      email: `root-${run}@example.com`,
      password: 'admin-password-1',
    });
    if (status !== 200) throw new Error(`admin sign-in failed: ${JSON.stringify(body)}`);
    return { client, id: body.id };
  }

  it('makes one account of eight registrations of one email at once through both nodes', async () => {
    const admin = await signInAdmin(nodeA);
    // Both nodes seeded ADMIN_EMAIL at the same start: one account.
    const { body } = await admin.client.call('GET', '/api/users');
    expect(body.items.filter((user: { email: string }) => user.email === `root-${run}@example.com`)).toHaveLength(1);
    for (let round = 0; round < 3; round++) {
      const { statuses, accounts } = await registerOneEmailConcurrently(
        [nodeA.url!, nodeB.url!],
        admin.client,
        `same-${round}-${run}@example.com`,
      );
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(accounts).toBe(1);
    }
  });

  it('keeps an enabled admin when two admins on two nodes demote or disable each other at once', async () => {
    let current = await signInAdmin(nodeA);
    for (let round = 0; round < 6; round++) {
      const change = round % 2 === 0 ? ({ role: 'user' } as const) : ({ disabled: true } as const);
      const outcome = await demoteEachOther(
        [nodeA.url!, nodeB.url!],
        current,
        `rival-${round}-${run}@example.com`,
        change,
      );
      expect(outcome.enabledAdmins).toBe(1);
      expect(outcome.statuses.filter((status) => status === 200)).toHaveLength(1);
      current = outcome.survivor!;
    }
  });
});
