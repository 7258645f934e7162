/**
 * @module bench/clickhouse-projector-child
 * The timed half of bench/clickhouse-projector.ts, run in a process of its own as `npm run projector`
 * runs the projector in production: the product's projector (`startClusterProjector`) is started on a
 * namespace whose traffic topic already holds the backlog, the events it applies are counted in 5 s
 * windows for `sustainSeconds` from the end of its first batch, and once it has applied them all its
 * totals are checked against ClickHouse. The figures go to the parent over IPC.
 *
 * Why a process of its own: in the bench's process the projector shared its heap and its event loop
 * with everything the bench had done before (half an hour of load generation, then the publisher of
 * the backlog), which no deployed projector does.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { identifier } from '../stores/cluster/clickhouse-sql.ts';
import { type ClusterSettings, connectClickHouse } from '../stores/cluster/connections.ts';
import { startClusterProjector } from '../stores/cluster/index.ts';
import { isMain } from './processes.ts';
import { startProfile } from './projector-profile.ts';

/** What the parent asks the child to measure. */
export interface ProjectionJob {
  settings: ClusterSettings;
  /** requests published: their events, and the rows ClickHouse must count in the end */
  requests: number;
  events: number;
  sustainSeconds: number;
  /** a .cpuprofile file to write the projector's timed span to */
  profile?: string;
}

/** What the child answers. */
export interface ProjectionResult {
  /** from `startClusterProjector` until every event was applied: connecting and joining the group included */
  totalSeconds: number;
  sustainedEventsPerSecond: number;
  sustainedSeconds: number;
  windows: number[];
  /**
   * The projector's own CPU (every thread of its process, user and system) per event applied over the
   * timed span: the part of the machine's work that is the projector's, whatever ran beside it.
   */
  cpuMicrosecondsPerEvent: number;
  warnings: number;
  firstWarnings: string[];
}

/** A point of the timed span: when, how many events were applied by then, and this process's CPU. */
interface Mark {
  at: number;
  applied: number;
  cpu: NodeJS.CpuUsage;
}

/** Width of the windows the sustained figure is reported in. */
const WINDOW_MS = 5_000;

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
  let first: Mark | null = null;
  const marks: Mark[] = [];
  while (progress().applied < events) {
    if (performance.now() > deadline)
      throw new Error(`the projector applied ${progress().applied} of ${events} events in ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = performance.now();
    const applied = progress().applied;
    if (applied > 0 && first === null) {
      first = { at: now, applied, cpu: process.cpuUsage() };
      marks.push(first);
    }
    const last = marks.at(-1);
    if (first && last && now - last.at >= WINDOW_MS && marks.length <= sustainMs / WINDOW_MS)
      marks.push({ at: now, applied, cpu: process.cpuUsage() });
  }
  const done = { at: performance.now(), applied: events, cpu: process.cpuUsage() };
  // The backlog ran out inside the timed span: its last, partial window ends with the last event.
  if (first && done.at - first.at < sustainMs) marks.push(done);
  return { first: first ?? done, marks, doneAt: done.at };
}

/** Runs the projector over the published backlog; see the module's comment. */
export async function projectBacklog(job: ProjectionJob): Promise<ProjectionResult> {
  const { settings, requests, events } = job;
  const clickhouse = connectClickHouse(settings);
  const start = performance.now();
  const warnings: string[] = [];
  const running = await startClusterProjector(settings, (message, extra) =>
    warnings.push(`${message} ${JSON.stringify(extra ?? {})}`),
  );
  const profiler = job.profile ? await startProfile() : null;
  let timing: Awaited<ReturnType<typeof waitForApplied>>;
  try {
    timing = await waitForApplied(
      () => running.projector.progress,
      events,
      job.sustainSeconds * 1000,
      30_000 + requests * 5,
    );
    // `applied` counts a batch re-delivered after a rebalance again, so it can reach the total before
    // the last events are written: the totals are awaited in ClickHouse itself.
    await awaitTotals(clickhouse, settings.clickhouseDatabase, requests, 120_000);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; ${warnings.slice(0, 3).join('; ')}`);
  } finally {
    if (profiler && job.profile) await profiler.stop(job.profile);
    // Stopping waits out the consumer's long poll (up to 5 s), off the timed span.
    await running.close();
    await clickhouse.close();
  }
  const { first, marks } = timing;
  const last = marks.at(-1) ?? first;
  const sustainedSeconds = (last.at - first.at) / 1000;
  const windows = marks.slice(1).map((mark, index) => {
    const previous = marks[index]!;
    return ((mark.applied - previous.applied) * 1000) / (mark.at - previous.at);
  });
  const totalSeconds = (timing.doneAt - start) / 1000;
  const cpuMicroseconds = last.cpu.user + last.cpu.system - first.cpu.user - first.cpu.system;
  const logged = {
    warnings: warnings.length,
    firstWarnings: warnings.slice(0, 3),
    totalSeconds,
    cpuMicrosecondsPerEvent: cpuMicroseconds / Math.max(1, last.applied - first.applied),
  };
  // A backlog that one or two writes drain (a quick run) has no span after its first write worth the
  // name: its figure is then every event over the time from start, joining the group included.
  if (sustainedSeconds * 1000 < WINDOW_MS)
    return { ...logged, sustainedEventsPerSecond: events / totalSeconds, sustainedSeconds: totalSeconds, windows: [] };
  return {
    ...logged,
    sustainedEventsPerSecond: (last.applied - first.applied) / sustainedSeconds,
    sustainedSeconds,
    windows,
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

if (isMain(import.meta.url)) {
  const job = JSON.parse(process.argv[2]!) as ProjectionJob;
  projectBacklog(job).then(
    (result) => process.send!({ result }, () => process.exit(0)),
    (error: unknown) =>
      process.send!({ error: error instanceof Error ? error.message : String(error) }, () => process.exit(1)),
  );
}
