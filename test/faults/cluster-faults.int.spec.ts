/**
 * Faults of the cluster on real Kafka, ClickHouse and Redis, with gateway nodes and projectors as
 * processes: ClickHouse stopped under traffic (the projector's backlog forms in Kafka, then drains),
 * Redis stopped (known keys keep working; what is refused is counted), a gateway node killed with
 * SIGKILL under load with a non-empty outbox (restarted on the same DATA_DIR: its outbox is replayed),
 * Kafka stopped and started four times in quick succession, and the projector killed with SIGKILL ten
 * times. An outage lasts FAULT_OUTAGE_MS (5 s; what matters is that traffic goes on and a backlog
 * forms while the server is away, which each case checks, not how long it is away).
 * Each case reports requests sent, succeeded and failed, and events lost or counted twice (ClickHouse
 * `requests FINAL` by request id). Figures go to test/artifacts/faults/cluster.json.
 *
 * Servers are stopped and started here, which would break any other cluster suite running at the same
 * time: it belongs to vitest's `cluster` project, whose files run one at a time after everything else.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropNamespace } from '../cluster/cluster-namespace.ts';
import { type ClusterProcess, startGatewayNode, startProjector } from '../cluster/cluster-processes.ts';
import {
  type ClusterServices,
  projectorRestartSettings,
  resolveClusterServices,
  startServer,
  stopServer,
} from '../cluster/cluster-services.ts';
import { type FakeUpstream, startFakeUpstream } from '../fake-upstream/server.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { failuresOf, type Sent, sendOne, statusesOf, traffic } from './cluster-traffic.ts';
import { compareCounts, FaultReport } from './fault-report.ts';
import { foundInKafka, groupLag, trafficBacklog } from './kafka-diagnostics.ts';

const services: ClusterServices | null = resolveClusterServices();
const run = Date.now().toString(36);
const database = `faults${run}`;
const OUTAGE_MS = Number(process.env['FAULT_OUTAGE_MS'] ?? 5_000);
const outage = `${OUTAGE_MS / 1000} s`;

const report = new FaultReport();
let upstream: FakeUpstream;
let environment: Record<string, string>;
let projector: ClusterProcess;
let node: ClusterProcess;
const processes: ClusterProcess[] = [];

function plainId(id: string): string {
  if (!/^[\w-]+$/.test(id)) throw new Error(`unexpected id ${id}`);
  return id;
}

/** Rows per request id in ClickHouse (`FINAL`, as every reader sees them) for one key. */
async function countedRequests(tokenId: string): Promise<Map<string, number>> {
  const client = createClient({ url: services!.clickhouseUrl });
  try {
    const rows = (await (
      await client.query({
        // Inlined (this ClickHouse predates query parameters); ids are ours, checked to be plain.
        // By the id the test sent as X-Request-Id, which the gateway keeps as client_request_id.
        query: `SELECT client_request_id AS id, count() AS n FROM ${database}.requests FINAL WHERE token_id = '${plainId(tokenId)}' GROUP BY client_request_id`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ id: string; n: string }>;
    return new Map(rows.map((row) => [row.id, Number(row.n)]));
  } catch (error) {
    console.warn(`[cluster faults] ClickHouse count failed: ${String(error).slice(0, 200)}`);
    return new Map();
  } finally {
    await client.close();
  }
}

/**
 * Counts per id once every id is counted, or `timeoutMs` has passed, or (with `quietMs`) the number of
 * rows has not changed for that long: the projector has caught up with what exists.
 */
async function settleCounts(
  tokenId: string,
  ids: string[],
  timeoutMs: number,
  quietMs = Number.POSITIVE_INFINITY,
): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  let counted = await countedRequests(tokenId);
  let rows = counted.size;
  let changedAt = Date.now();
  while (ids.some((id) => !counted.has(id)) && Date.now() < deadline && Date.now() - changedAt < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    counted = await countedRequests(tokenId);
    if (counted.size !== rows) {
      rows = counted.size;
      changedAt = Date.now();
    }
  }
  return counted;
}

/**
 * Waits until every request sent is counted (or two minutes pass), reports the case, and checks the
 * promise every case keeps: every request answered, none lost, none counted twice.
 */
async function settleReportAndCheck(name: string, tokenId: string, sent: Sent[], note?: string): Promise<void> {
  const ids = sent.map((request) => request.id);
  const counted = await settleCounts(tokenId, ids, 120_000);
  const { lost, doubleCounted } = compareCounts(ids, counted);
  const succeeded = sent.filter((request) => request.ok).length;
  report.add({
    case: name,
    sent: ids.length,
    succeeded,
    failed: ids.length - succeeded,
    healthyUpstream5xx: sent.filter((request) => request.status >= 500 || request.status === 0).length,
    lost,
    doubleCounted,
    statuses: statusesOf(sent),
    ...(note === undefined ? {} : { note }),
    failures: failuresOf(sent),
  });
  if (succeeded !== ids.length || lost > 0 || doubleCounted > 0) {
    const missing = ids.filter((id) => !counted.has(id));
    console.warn(`[cluster faults] uncounted ids: ${missing.slice(0, 10).join(' ')} … ${missing.slice(-10).join(' ')}`);
    // Events still in Kafka past the group's offsets mean a stuck projector; none, a stuck node.
    console.warn(
      `[cluster faults] projector group's lag: ${await groupLag(services!.kafkaBrokers, `faults${run}.`).catch((error) => String(error))}`,
    );
    console.warn(
      `[cluster faults] uncounted ids in Kafka: ${await foundInKafka(services!.kafkaBrokers, `faults${run}.`, missing).catch((error) => String(error))}`,
    );
    console.warn(`[cluster faults] node's output:\n${node.notable.join('\n').slice(-8_000)}`);
    console.warn(`[cluster faults] projector's output:\n${projector.notable.join('\n').slice(-8_000)}`);
  }
  expect(succeeded).toBe(ids.length);
  expect(lost).toBe(0);
  expect(doubleCounted).toBe(0);
}

async function newKey(name: string): Promise<{ key: string; id: string }> {
  const client = new ConsoleClient(node.url!);
  await client.register(`${name}-${run}@example.com`);
  const created = await client.createToken(name);
  return { key: created.key, id: created.id };
}

describe.skipIf(services === null)('cluster faults on real Kafka, ClickHouse and Redis', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const directory = mkdtempSync(path.join(tmpdir(), 'cluster-faults-'));
    const config = path.join(directory, 'gateway.yaml');
    writeFileSync(
      config,
      `channels:\n  - {name: openai, type: openai, base_url: '${upstream.url}/v1', api_key: upstream-key, models: [gpt-4o-mini]}\n  - {name: anthropic, type: anthropic, base_url: '${upstream.url}', api_key: upstream-key, models: [claude-sonnet-4-5]}\n`,
    );
    environment = {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `faults${run}.`,
      CLICKHOUSE_DATABASE: database,
      GATEWAY_SECRET: 'cluster-faults-secret-0123456789abcdefghijklmn',
      GATEWAY_CONFIG: config,
      ...projectorRestartSettings(services!),
    };
    projector = await startProjector(environment);
    processes.push(projector);
    node = await startGatewayNode(environment);
    processes.push(node);
  }, 180_000);

  afterAll(async () => {
    report.write('cluster');
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    await upstream?.close();
    // The faults may leave a server slow to answer: what cannot be dropped now is left, not failed on.
    await dropNamespace(services!, `faults${run}.`, database).catch(() => undefined);
  });

  it(`ClickHouse stopped for ${outage} under traffic: no failed request, a backlog formed, totals exact after`, async () => {
    const { key, id: tokenId } = await newKey('clickhouse');
    const load = traffic(() => [node], key, 'ch');
    await stopServer(services!, 'clickhouse');
    const sentBefore = load.sent.length;
    let backlog = 0;
    try {
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      backlog = await trafficBacklog(services!.kafkaBrokers, `faults${run}.`);
    } finally {
      await startServer(services!, 'clickhouse');
    }
    const sentDuring = load.sent.length - sentBefore;
    await load.stop();
    await settleReportAndCheck(
      `ClickHouse stopped ${outage} under traffic`,
      tokenId,
      load.sent,
      `${sentDuring} requests answered during the outage; ${backlog} traffic events waiting in Kafka at its end`,
    );
    // The outage was felt: traffic went on and the projector fell behind, then caught up (checked above).
    expect(sentDuring).toBeGreaterThan(20);
    expect(backlog).toBeGreaterThan(0);
  }, 300_000);

  it(`Redis stopped for ${outage}: known keys keep working; what is refused is counted`, async () => {
    const { key, id: tokenId } = await newKey('redis');
    const signedIn = new ConsoleClient(node.url!);
    await signedIn.register(`redis-console-${run}@example.com`);
    const load = traffic(() => [node], key, 'redis');
    await stopServer(services!, 'redis');
    const sentBefore = load.sent.length;
    const refused: Record<string, number> = {};
    const consoleStatuses: number[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.min(3_000, OUTAGE_MS / 2)));
      const attempts: Array<[string, () => Promise<{ status: number }>]> = [
        ['create a key', () => signedIn.call('POST', '/api/tokens', { name: 'during outage' })],
        [
          'register',
          () =>
            new ConsoleClient(node.url!).call('POST', '/api/auth/register', {
              email: `late-${run}@example.com`,
              password: 'late-password-1',
            }),
        ],
        ['list keys', () => signedIn.call('GET', '/api/tokens')],
      ];
      for (const [what, attempt] of attempts) {
        const response = await attempt().catch(() => ({ status: 0 }));
        refused[`${what}: ${response.status}`] = 1;
        consoleStatuses.push(response.status);
      }
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - Math.min(3_000, OUTAGE_MS / 2)));
    } finally {
      await startServer(services!, 'redis');
    }
    const sentDuring = load.sent.length - sentBefore;
    await load.stop();
    await settleReportAndCheck(
      `Redis stopped ${outage} under traffic (known key)`,
      tokenId,
      load.sent,
      `${sentDuring} requests answered during the outage; console during the outage: ${Object.keys(refused).join('; ')}`,
    );
    expect(sentDuring).toBeGreaterThan(20);
    // What the console refuses during the outage, it refuses clearly (503 store_unavailable), never a 500.
    expect(consoleStatuses).not.toContain(500);
  }, 300_000);

  it('a gateway node killed with SIGKILL under load with a non-empty outbox: restarted on its DATA_DIR, the outbox is replayed', async () => {
    const { key, id: tokenId } = await newKey('sigkill');
    const dataDirectory = mkdtempSync(path.join(tmpdir(), 'gateway-node-killed-'));
    let victim = await startGatewayNode({ ...environment, DATA_DIR: dataDirectory });
    processes.push(victim);
    await stopServer(services!, 'kafka');
    let outboxed: Sent[] = [];
    let load: ReturnType<typeof traffic>;
    try {
      // Requests answered while Kafka is down: their events go to the node's outbox on disk.
      for (let index = 0; index < 20; index += 1) outboxed.push(await sendOne(victim, key, `outbox-${index}`, index));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      load = traffic(() => [victim], key, 'killed');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await victim.kill('SIGKILL');
      await load.stop();
    } finally {
      await startServer(services!, 'kafka');
    }
    victim = await startGatewayNode({ ...environment, DATA_DIR: dataDirectory });
    processes.push(victim);
    outboxed = outboxed.filter(Boolean);
    const outboxIds = outboxed.map((request) => request.id);
    // In flight at the kill: answered requests whose events may still have been in memory (docs/operations.md: a hard
    // crash can lose the last few milliseconds of a node's traffic events).
    const answered = load!.sent.filter((request) => request.ok).map((request) => request.id);
    // The outbox must come through in full; of the answered requests, those whose events were in memory
    // at the kill never will, so they are waited for only until the count stops growing.
    await settleCounts(tokenId, outboxIds, 120_000);
    const counted = await settleCounts(tokenId, [...outboxIds, ...answered], 120_000, 5_000);
    const outboxCounts = compareCounts(outboxIds, counted);
    const answeredCounts = compareCounts(answered, counted);
    const all = [...outboxed, ...load!.sent];
    const succeeded = all.filter((request) => request.ok).length;
    report.add({
      case: 'gateway node SIGKILL under load, outbox replayed after restart',
      sent: all.length,
      succeeded,
      failed: all.length - succeeded,
      healthyUpstream5xx: outboxed.filter((request) => !request.ok).length,
      lost: outboxCounts.lost + answeredCounts.lost,
      doubleCounted: outboxCounts.doubleCounted + answeredCounts.doubleCounted,
      statuses: statusesOf(all),
      note: `${outboxIds.length} answered while Kafka was down (outbox): ${outboxCounts.lost} lost; ${answered.length} answered under load before the kill: ${answeredCounts.lost} lost (in memory at the kill); ${load!.sent.length - answered.length} cut by the kill`,
    });
    if (outboxCounts.lost + answeredCounts.lost > 0) {
      // Seen once in CI (every request of this case uncounted after 120 s, the next run green): what
      // the restarted node and the projector said is what tells a stuck replay from a stuck projector.
      console.warn(`[cluster faults] restarted node's output:\n${victim.output.join('').slice(-6_000)}`);
      console.warn(`[cluster faults] projector's output:\n${projector.output.join('').slice(-6_000)}`);
    }
    expect(outboxed.every((request) => request.ok)).toBe(true);
    expect(outboxCounts.lost).toBe(0);
    expect(outboxCounts.doubleCounted).toBe(0);
    expect(answeredCounts.doubleCounted).toBe(0);
  }, 300_000);

  it('Kafka stopped and started four times in quick succession under traffic: the projector consumes again each time', async () => {
    const { key, id: tokenId } = await newKey('kafka-flaps');
    // Counted as it is said (the output kept is capped): each time the projector replaced its consumer.
    let replaced = 0;
    const listen = (data: Buffer) => {
      replaced += data.toString().split('projector consumer started again').length - 1;
    };
    projector.child.stdout!.on('data', listen);
    const load = traffic(() => [node], key, 'flap');
    for (let flap = 0; flap < 4; flap += 1) {
      // Stopped again soon after it came back: while the consumer is finding its group coordinator,
      // which once left kafkajs's consumer stopped for good ("Failed to find group coordinator").
      await new Promise((resolve) => setTimeout(resolve, 1_000 + Math.random() * 3_000));
      await stopServer(services!, 'kafka');
      await startServer(services!, 'kafka');
    }
    await load.stop();
    projector.child.stdout!.off('data', listen);
    await settleReportAndCheck(
      'Kafka stopped and started 4 times in quick succession under traffic',
      tokenId,
      load.sent,
      `the projector started a new consumer ${replaced} times, after crashes kafkajs does not restart from`,
    );
  }, 300_000);

  it('the projector killed with SIGKILL ten times under traffic: totals exact', async () => {
    const { key, id: tokenId } = await newKey('projector');
    const load = traffic(() => [node], key, 'proj');
    for (let kill = 0; kill < 10; kill += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
      await projector.kill('SIGKILL');
      projector = await startProjector(environment);
      processes.push(projector);
    }
    await load.stop();
    await settleReportAndCheck('projector SIGKILL ×10 under traffic', tokenId, load.sent);
  }, 300_000);
});
