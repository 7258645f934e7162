/**
 * @module bench/pipeline-clickhouse
 * The event pipeline's figures in the cluster mode, against the real servers `scripts/services up`
 * starts (or those KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL name), in a namespace of their own
 * (topics, consumer group, Redis keys and ClickHouse databases), dropped at the end:
 *
 * - projector throughput (bench/clickhouse-projector.ts): events published through the product's
 *   Kafka event log, then the product's projector timed until it has applied them all;
 * - the data overview over a generated history (bench/clickhouse-generator.ts): the product's
 *   `ClickHouseUsageQueries.overview` timed for all users and for the busiest user over 30 days, and
 *   the usage log's first page;
 * - a live write's cost as the hour fills up (bench/clickhouse-live-writes.ts).
 *
 * When a server does not answer, the entry is reported as not available, with the reason.
 */
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { createClient as createRedisClient } from 'redis';
import { ClickHouseUsageQueries } from '../stores/cluster/clickhouse-usage-queries.ts';
import { type ClusterSettings, connectKafka, migrateClickHouse } from '../stores/cluster/connections.ts';
import { topicNames } from '../stores/cluster/kafka-event-log.ts';
import { type LiveWritesPlan, type LiveWritesResult, measureLiveWrites } from './clickhouse-live-writes.ts';
import { type ClickHouseOverviewResult, measureClickHouseOverview } from './clickhouse-overview-timing.ts';
import { type ClickHouseProjectorResult, measureClickHouseProjector } from './clickhouse-projector.ts';

export interface ClickHousePlan {
  projectorRequests: number;
  /** how long the projector's throughput is timed (the backlog of `projectorRequests` must outlast it) */
  projectorSustainSeconds: number;
  overviewRequests: number;
  overviewRuns: number;
  overviewBudgetMs: number;
  liveWrites: LiveWritesPlan;
}

export interface ClickHousePipelineResult {
  clickhouseVersion: string;
  projector: ClickHouseProjectorResult;
  overview: ClickHouseOverviewResult;
  /** absent in saved results of older runs */
  liveWrites?: LiveWritesResult;
}

export type ClickHousePipeline = { result: ClickHousePipelineResult; reason: null } | { result: null; reason: string };

/** The servers of `scripts/services up` unless the environment names others. */
function serverSettings(run: string): ClusterSettings {
  return {
    kafkaBrokers: process.env.KAFKA_BROKERS || '127.0.0.1:9092',
    clickhouseUrl: process.env.CLICKHOUSE_URL || 'http://127.0.0.1:8123',
    redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    namespace: `${run}.`,
    clickhouseDatabase: run,
    trafficRetentionHours: 24,
    usageRetentionMonths: 0,
  };
}

const withTimeout = <T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer in ${ms} ms`)), ms)),
  ]);

/** Null when all three servers answer, else why not. */
async function unreachable(settings: ClusterSettings, clickhouse: ClickHouseClient): Promise<string | null> {
  const problems: string[] = [];
  const ping = await withTimeout(clickhouse.ping(), 'ClickHouse').catch((error: unknown) => ({
    success: false as const,
    error,
  }));
  if (!ping.success) problems.push(`ClickHouse at ${settings.clickhouseUrl}: ${String(ping.error)}`);
  const redis = createRedisClient({
    url: settings.redisUrl,
    socket: { connectTimeout: 2000, reconnectStrategy: false },
  });
  redis.on('error', () => {});
  await withTimeout(redis.connect(), 'Redis').then(
    () => redis.quit(),
    (error: unknown) => problems.push(`Redis at ${settings.redisUrl}: ${String(error)}`),
  );
  const admin = connectKafka(settings, `${settings.namespace}bench-probe`).admin();
  await withTimeout(
    admin.connect().then(() => admin.listTopics()),
    'Kafka',
  ).catch((error: unknown) => problems.push(`Kafka at ${settings.kafkaBrokers}: ${String(error)}`));
  await admin.disconnect().catch(() => {});
  if (problems.length === 0) return null;
  return `not available: ${problems.join('; ')} (\`eval "$(scripts/services up)"\` starts the three servers)`;
}

/** Drops what the run created: its databases, topics, consumer group and Redis keys. */
async function dropNamespace(settings: ClusterSettings, clickhouse: ClickHouseClient, databases: string[]) {
  for (const database of databases) await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  const admin = connectKafka(settings, `${settings.namespace}bench-cleanup`).admin();
  await admin.connect();
  try {
    const topics = Object.values(topicNames(settings.namespace));
    const existing = new Set(await admin.listTopics());
    await admin.deleteTopics({ topics: topics.filter((topic) => existing.has(topic)) });
    await admin.deleteGroups([`${settings.namespace}projector`]).catch(() => {});
  } finally {
    await admin.disconnect();
  }
  const redis = createRedisClient({ url: settings.redisUrl });
  await redis.connect();
  try {
    for await (const keys of redis.scanIterator({ MATCH: `${settings.namespace}*`, COUNT: 1000 })) {
      const found = Array.isArray(keys) ? keys : [keys];
      if (found.length > 0) await redis.unlink(found);
    }
  } finally {
    await redis.quit();
  }
}

export function measureClickHousePipeline(
  plan: ClickHousePlan,
  log: (message: string) => void,
): Promise<ClickHousePipeline> {
  return inNamespace(log, async (run) => ({
    clickhouseVersion: run.version,
    projector: await projectorFigures(plan, run, log),
    overview: await overviewFigures(plan, run, log),
    liveWrites: await liveWriteFigures(plan, run, log),
  }));
}

export async function liveWriteFigures(
  plan: ClickHousePlan,
  { clickhouse, liveDatabase }: BenchNamespace,
  log: (message: string) => void,
): Promise<LiveWritesResult> {
  const { writeRequests, fillLevels } = plan.liveWrites;
  log(
    `pipeline: ClickHouse live writes of ${writeRequests} requests, at ${fillLevels.join(', ')} requests in the hour`,
  );
  const result = await measureLiveWrites(clickhouse, liveDatabase, plan.liveWrites);
  log(`  median ms per write: ${result.levels.map((level) => level.medianMs.toFixed(0)).join(', ')}`);
  return result;
}

/** What a measurement gets: the run's own settings and databases, and a client. */
export interface BenchNamespace {
  settings: ClusterSettings;
  clickhouse: ClickHouseClient;
  version: string;
  overviewDatabase: string;
  liveDatabase: string;
}

/**
 * Runs `measure` in a fresh namespace (topics, consumer group, Redis keys and ClickHouse databases of
 * its own) and drops it afterwards; reports servers that do not answer instead.
 */
export async function inNamespace<Result>(
  log: (message: string) => void,
  measure: (run: BenchNamespace) => Promise<Result>,
): Promise<{ result: Result; reason: null } | { result: null; reason: string }> {
  const name = `bench${Date.now().toString(36)}`;
  const settings = serverSettings(name);
  const overviewDatabase = `${name}_overview`;
  const liveDatabase = `${name}_live`;
  // Statements of the generator run for a minute at 10 million requests.
  // Its own warnings would repeat what `unreachable` reports.
  // The client's request timeout (30 s by default) covers the whole statement, progress headers or
  // not: the generator's statements took longer than that on a busy machine.
  const clickhouse = createClient({
    url: settings.clickhouseUrl,
    request_timeout: 900_000,
    log: { level: ClickHouseLogLevel.OFF },
  });
  try {
    const reason = await unreachable(settings, clickhouse);
    if (reason) return { result: null, reason };
    const versionRows = (await (
      await clickhouse.query({ query: 'SELECT version() AS version', format: 'JSONEachRow' })
    ).json()) as Array<{ version: string }>;
    try {
      const version = versionRows[0]?.version ?? '?';
      return {
        result: await measure({ settings, clickhouse, version, overviewDatabase, liveDatabase }),
        reason: null,
      };
    } catch (error) {
      log(`pipeline: ClickHouse measurement failed: ${String(error)}`);
      throw error;
    } finally {
      // BENCH_KEEP_NAMESPACE=1 keeps the data for a closer look at the queries (drop it by hand).
      if (process.env.BENCH_KEEP_NAMESPACE === '1')
        log(`pipeline: kept ClickHouse databases ${name}, ${overviewDatabase}, ${liveDatabase}`);
      else await dropNamespace(settings, clickhouse, [name, overviewDatabase, liveDatabase]);
    }
  } finally {
    await clickhouse.close();
  }
}

export async function projectorFigures(
  plan: ClickHousePlan,
  { settings }: BenchNamespace,
  log: (message: string) => void,
  profile?: string,
): Promise<ClickHouseProjectorResult> {
  log(`pipeline: ClickHouse projector, ${plan.projectorRequests.toLocaleString('en')} requests`);
  const projector = await measureClickHouseProjector(
    settings,
    plan.projectorRequests,
    plan.projectorSustainSeconds,
    profile,
  );
  log(
    `  publish ${projector.publishEventsPerSecond.toFixed(0)} events/s, project ${projector.sustainedEventsPerSecond.toFixed(0)} events/s over ${projector.sustainedSeconds.toFixed(0)} s, ${projector.cpuMicrosecondsPerEvent?.toFixed(1)} µs of its CPU per event (5 s windows: ${projector.windows.map((value) => value.toFixed(0)).join(', ')}; ${projector.totalSeconds.toFixed(1)} s from start; ${projector.warnings ?? 0} warnings)`,
  );
  return projector;
}

export async function overviewFigures(
  plan: ClickHousePlan,
  { clickhouse, overviewDatabase: database }: BenchNamespace,
  log: (message: string) => void,
): Promise<ClickHouseOverviewResult> {
  log(`pipeline: ClickHouse overview over ${plan.overviewRequests.toLocaleString('en')} generated requests`);
  await migrateClickHouse(clickhouse, database);
  const queries = new ClickHouseUsageQueries(clickhouse, database);
  const overview = await measureClickHouseOverview(clickhouse, database, queries, plan);
  log(
    `  generated in ${(overview.rawSeconds + overview.rollupSeconds).toFixed(1)} s; all users p95 ${overview.allUsers.p95.toFixed(1)} ms, busiest user p95 ${overview.oneUser.p95.toFixed(1)} ms`,
  );
  return overview;
}
