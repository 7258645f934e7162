/**
 * @module bench/clickhouse-projector
 * The cluster projector's sustained throughput: N requests' `request.completed` + `usage.recorded`
 * events are published to a fresh namespace's traffic topic through the product's Kafka event log (a
 * backlog larger than the timed span can drain), then the product's projector (`startClusterProjector`,
 * what `npm run projector` runs) is started, and the events it applies are counted in 5 s windows for
 * `sustainSeconds` from the end of its first batch. It then finishes the backlog and its totals are
 * checked against ClickHouse.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { identifier } from '../stores/cluster/clickhouse-sql.ts';
import { type ClusterSettings, connectKafka, ensureTopics } from '../stores/cluster/connections.ts';
import { startClusterProjector } from '../stores/cluster/index.ts';
import { KafkaEventLog, topicNames } from '../stores/cluster/kafka-event-log.ts';
import { Outbox } from '../stores/cluster/outbox.ts';
import { TrafficGenerator } from './pipeline.ts';
import { startProfile } from './projector-profile.ts';

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
  /** what the projector logged (retried writes, skipped events), and the first few messages */
  warnings?: number;
  firstWarnings?: string[];
}

/** Width of the windows the sustained figure is reported in. */
const WINDOW_MS = 5_000;

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
async function publish(settings: ClusterSettings, requests: number): Promise<{ events: number; seconds: number }> {
  const kafka = connectKafka(settings, `${settings.namespace}bench`);
  await ensureTopics(kafka, topicNames(settings.namespace), 24);
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  const outbox = new Outbox(directory);
  const sendErrors: unknown[] = [];
  const log = new KafkaEventLog(kafka, topicNames(settings.namespace), outbox, (error) => sendErrors.push(error));
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
 * Polls the projector's count of applied events until all are applied; counts them in windows of
 * `WINDOW_MS` for `sustainMs` from the end of its first batch (or until the backlog runs out).
 */
async function waitForApplied(
  progress: () => { applied: number },
  events: number,
  sustainMs: number,
  timeoutMs: number,
) {
  const deadline = performance.now() + timeoutMs;
  let first: { at: number; applied: number } | null = null;
  const marks: Array<{ at: number; applied: number }> = [];
  while (progress().applied < events) {
    if (performance.now() > deadline)
      throw new Error(`the projector applied ${progress().applied} of ${events} events in ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = performance.now();
    const applied = progress().applied;
    if (applied > 0 && first === null) {
      first = { at: now, applied };
      marks.push(first);
    }
    const last = marks.at(-1);
    if (first && last && now - last.at >= WINDOW_MS && marks.length <= sustainMs / WINDOW_MS)
      marks.push({ at: now, applied });
  }
  const done = { at: performance.now(), applied: events };
  // The backlog ran out inside the timed span: its last, partial window ends with the last event.
  if (first && done.at - first.at < sustainMs) marks.push(done);
  return { first: first ?? done, marks, doneAt: done.at };
}

/**
 * Stopping the projector waits out its consumer's long poll (up to 5 s): that goes into `stopping`,
 * for the caller to await before it drops the namespace, while it measures something else.
 */
export async function measureClickHouseProjector(
  settings: ClusterSettings,
  clickhouse: ClickHouseClient,
  requests: number,
  sustainSeconds: number,
  stopping: Array<Promise<unknown>>,
  profile?: string,
): Promise<ClickHouseProjectorResult> {
  const published = await publish(settings, requests);
  const start = performance.now();
  const warnings: string[] = [];
  const running = await startClusterProjector(settings, (message, extra) =>
    warnings.push(`${message} ${JSON.stringify(extra ?? {})}`),
  );
  const profiler = profile ? await startProfile() : null;
  let timing: Awaited<ReturnType<typeof waitForApplied>>;
  try {
    timing = await waitForApplied(
      () => running.projector.progress,
      published.events,
      sustainSeconds * 1000,
      30_000 + requests * 5,
    );
    // `applied` counts a batch re-delivered after a rebalance again, so it can reach the total before
    // the last events are written: the totals are awaited in ClickHouse itself.
    await awaitTotals(clickhouse, settings.clickhouseDatabase, requests, 120_000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; ${warnings.slice(0, 3).join('; ')}`);
  } finally {
    if (profiler && profile) await profiler.stop(profile);
    stopping.push(running.close());
  }
  const { first, marks } = timing;
  const last = marks.at(-1) ?? first;
  const sustainedSeconds = (last.at - first.at) / 1000;
  const windows = marks.slice(1).map((mark, index) => {
    const previous = marks[index]!;
    return ((mark.applied - previous.applied) * 1000) / (mark.at - previous.at);
  });
  return {
    requests,
    events: published.events,
    publishSeconds: published.seconds,
    publishEventsPerSecond: published.events / published.seconds,
    totalSeconds: (timing.doneAt - start) / 1000,
    warnings: warnings.length,
    firstWarnings: warnings.slice(0, 3),
    // A backlog that one or two writes drain (a quick run) has no span after its first write worth
    // the name: its figure is then every event over the time from start, joining the group included.
    ...(sustainedSeconds * 1000 < WINDOW_MS
      ? {
          sustainedEventsPerSecond: published.events / ((timing.doneAt - start) / 1000),
          sustainedSeconds: (timing.doneAt - start) / 1000,
          windows: [],
        }
      : {
          sustainedEventsPerSecond: (last.applied - first.applied) / sustainedSeconds,
          sustainedSeconds,
          windows,
        }),
  };
}

/** Polls `checkTotals` until it passes, or throws its last complaint after `timeoutMs`. */
async function awaitTotals(clickhouse: ClickHouseClient, database: string, requests: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await checkTotals(clickhouse, database, requests);
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Every request counted once, in the raw table and in every rollup. */
async function checkTotals(clickhouse: ClickHouseClient, database: string, requests: number): Promise<void> {
  const db = identifier(database);
  const counted = (table: string, column: string) => `(SELECT ${column} FROM ${db}.${table} FINAL) AS ${table}`;
  const result = await clickhouse.query({
    query: `SELECT ${[
      counted('requests', 'count()'),
      ...['usage_hourly', 'usage_hourly_user_models', 'usage_hourly_models', 'usage_hourly_tokens'].map((table) =>
        counted(table, 'sum(calls)'),
      ),
    ].join(', ')}`,
    format: 'JSONEachRow',
  });
  const [row] = (await result.json()) as Array<Record<string, string>>;
  const wrong = Object.entries(row ?? {}).filter(([, value]) => Number(value) !== requests);
  if (wrong.length > 0)
    throw new Error(
      `after projecting ${requests} requests ClickHouse counts ${JSON.stringify(Object.fromEntries(wrong))}`,
    );
}
