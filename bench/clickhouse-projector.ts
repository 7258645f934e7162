/**
 * @module bench/clickhouse-projector
 * The cluster projector's sustained throughput: N requests' `request.completed` + `usage.recorded`
 * events are published to a fresh namespace's traffic topic through the product's Kafka event log (a
 * backlog larger than the timed span can drain), then the product's projector (`startClusterProjector`,
 * what `npm run projector` runs) is started in a process of its own, and the events it applies are
 * counted in 5 s windows for `sustainSeconds` from the end of its first batch. It then finishes the
 * backlog and its totals are checked against ClickHouse (bench/clickhouse-projector-child.ts).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { type ClusterSettings, connectKafka, ensureTopics } from '../stores/cluster/connections.ts';
import { KafkaEventLog, topicNames } from '../stores/cluster/kafka-event-log.ts';
import { Outbox } from '../stores/cluster/outbox.ts';
import { refuseDoubt } from '../stores/cluster/outbox-doubt.ts';
import type { ProjectionJob, ProjectionResult } from './clickhouse-projector-child.ts';
import { TrafficGenerator } from './pipeline.ts';
import { ROOT } from './processes.ts';

const CHILD = path.join(ROOT, 'bench/clickhouse-projector-child.ts');

export interface ClickHouseProjectorResult {
  requests: number;
  events: number;
  publishSeconds: number;
  publishEventsPerSecond: number;
  /** from `startClusterProjector` until every event was applied: connecting and joining the group included */
  totalSeconds: number;
  /** events applied per second over the timed span (from the end of the first batch) */
  sustainedEventsPerSecond: number;
  /** the timed span in seconds: `sustainSeconds`, or less when the backlog ran out first */
  sustainedSeconds: number;
  /** events per second in each 5 s window of the timed span */
  windows: number[];
  /** the projector process's CPU per event over the timed span (bench/clickhouse-projector-child.ts) */
  cpuMicrosecondsPerEvent?: number;
  /** what the projector logged (retried writes, skipped events), and the first few messages */
  warnings?: number;
  firstWarnings?: string[];
}

/** A gateway publishes in the background, in batches of about this many events. */
const PUBLISH_BATCH = 1000;
/** Requests generated (and sorted by time) at once, so a backlog of millions is never all in memory. */
const GENERATE_CHUNK = 100_000;
/** Publishes in flight at once, as several gateway nodes would send. */
const PUBLISH_CONCURRENCY = 4;

/** The events of `requests` requests, in the order gateways would publish them. */
function traffic(generator: TrafficGenerator, requests: number): GatewayEvent[] {
  const pairs: Array<[GatewayEvent, GatewayEvent]> = [];
  for (let done = 0; done < requests; done++) pairs.push(generator.request());
  // Gateways publish a request's events when it ends, so the log is in time order (a rebuild replays
  // it in that order too); the generator draws times at random, so its requests are sorted first.
  pairs.sort(([left], [right]) => Date.parse(left.occurredAt) - Date.parse(right.occurredAt));
  return pairs.flat();
}

/** Publishes the traffic of `requests` requests; the events are dropped before it returns. */
export async function publish(
  settings: ClusterSettings,
  requests: number,
): Promise<{ events: number; seconds: number }> {
  const kafka = connectKafka(settings, `${settings.namespace}bench`);
  await ensureTopics(kafka, topicNames(settings.namespace), 24);
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  const outbox = new Outbox(directory);
  const sendErrors: unknown[] = [];
  const log = new KafkaEventLog(kafka, topicNames(settings.namespace), outbox, refuseDoubt, (error) =>
    sendErrors.push(error),
  );
  const generator = new TrafficGenerator(200);
  // The backlog covers the last 30 days in time order, each chunk its own slice, as the log of a
  // gateway is: a write of the projector touches a day or so of (user, hour) pairs, about as many as
  // live traffic touches in its hour.
  const now = Date.now();
  const chunks = Math.ceil(requests / GENERATE_CHUNK);
  const sliceMs = (30 * 24 * 3_600_000) / chunks;
  let published = 0;
  try {
    await log.start();
    const start = performance.now();
    for (let generated = 0, chunk = 0; generated < requests; generated += GENERATE_CHUNK, chunk++) {
      generator.within(now - (chunks - 1 - chunk) * sliceMs, sliceMs);
      const events = traffic(generator, Math.min(GENERATE_CHUNK, requests - generated));
      let next = 0;
      const sender = async () => {
        while (next < events.length) {
          const batch = events.slice(next, next + PUBLISH_BATCH);
          next += PUBLISH_BATCH;
          await log.append(batch);
        }
      };
      await Promise.all(Array.from({ length: PUBLISH_CONCURRENCY }, sender));
      published += events.length;
    }
    await log.close(60_000);
    const seconds = (performance.now() - start) / 1000;
    if (outbox.size > 0) throw new Error(`${outbox.size} events stayed in the outbox: ${String(sendErrors[0])}`);
    return { events: published, seconds };
  } finally {
    outbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Publishes the backlog here, then measures the projector over it in a process of its own
 * (bench/clickhouse-projector-child.ts), and returns both halves' figures.
 */
export async function measureClickHouseProjector(
  settings: ClusterSettings,
  requests: number,
  sustainSeconds: number,
  profile?: string,
): Promise<ClickHouseProjectorResult> {
  const published = await publish(settings, requests);
  const projected = await projectInChild({ settings, requests, events: published.events, sustainSeconds, profile });
  return {
    requests,
    events: published.events,
    publishSeconds: published.seconds,
    publishEventsPerSecond: published.events / published.seconds,
    ...projected,
  };
}

/** Runs `projectBacklog` in a child process and returns its answer, or throws its error. */
function projectInChild(job: ProjectionJob): Promise<ProjectionResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(job)], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let stderr = '';
    let answer: { result?: ProjectionResult; error?: string } | null = null;
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('message', (message) => {
      answer = message as typeof answer;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const received = answer as { result?: ProjectionResult; error?: string } | null;
      if (received?.result) resolve(received.result);
      else reject(new Error(received?.error ?? `the projector's process exited with ${code}: ${stderr.slice(-500)}`));
    });
  });
}
