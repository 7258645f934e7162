/**
 * @module bench/clickhouse-overview-timing
 * Generates a history in a fresh ClickHouse database and times the console's reads over it: the data
 * overview (all users, and the busiest user, over the last 30 days) and the usage log's first page.
 *
 * The timing waits until ClickHouse runs no merge in any database, so that merges left by the phases
 * before it (in the full bench, the projector's backlog of 6 million events comes just before) do
 * not share the two cores with it; the merges found running and the wait are reported. The 95th
 * percentile is of 60 runs in the full bench: of 20 it was their second slowest, one stall's figure.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseUsageQueries } from '../stores/cluster/clickhouse-usage-queries.ts';
import { generateRequests } from './clickhouse-generator.ts';
import { Samples } from './load.ts';

const DAY_MS = 24 * 3_600_000;

export interface Timing {
  p50: number;
  p95: number;
  runs: number;
}

export interface ClickHouseOverviewResult {
  requests: number;
  rawSeconds: number;
  rollupSeconds: number;
  /** rows of each table after generation */
  rows: Record<string, number>;
  /** compressed bytes on disk of the whole database */
  megabytes: number;
  busiestUserShare: number;
  /** the default view of 30 days: by day */
  allUsers: Timing;
  /** the same 30 days by hour (absent in results saved before it was measured) */
  allUsersHourly?: Timing;
  oneUser: Timing;
  /** the usage log's first page (50 requests) of the busiest user, and of all users */
  logsOneUser: Timing;
  logsAllUsers: Timing;
  /** merges running on the server when the timing was ready to start, and the seconds until none ran */
  settled?: { merges: number; seconds: number };
}

async function runningMerges(client: ClickHouseClient): Promise<number> {
  const [row] = await rows<{ merges: string }>(client, 'SELECT count() AS merges FROM system.merges');
  return Number(row?.merges ?? 0);
}

/** Waits until no merge has run on the server for two polls a second apart, at most `limitMs`. */
async function mergesSettled(client: ClickHouseClient, limitMs: number): Promise<{ merges: number; seconds: number }> {
  const start = performance.now();
  const merges = await runningMerges(client);
  for (let quiet = merges === 0 ? 1 : 0; quiet < 2 && performance.now() - start < limitMs; ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    quiet = (await runningMerges(client)) === 0 ? quiet + 1 : 0;
  }
  return { merges, seconds: (performance.now() - start) / 1000 };
}

async function rows<Row>(client: ClickHouseClient, query: string): Promise<Row[]> {
  return (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Row[];
}

/** Times `read` `runs` times after one warm-up, stopping early (after at least 3) once `budgetMs` is spent. */
async function time(read: () => Promise<unknown>, runs: number, budgetMs: number): Promise<Timing> {
  await read();
  const samples = new Samples();
  const deadline = performance.now() + budgetMs;
  for (let run = 0; run < runs && (run < 3 || performance.now() < deadline); run++) {
    const start = performance.now();
    await read();
    samples.add(performance.now() - start);
  }
  return { p50: samples.quantile(0.5), p95: samples.quantile(0.95), runs: samples.count };
}

export async function measureClickHouseOverview(
  client: ClickHouseClient,
  database: string,
  queries: ClickHouseUsageQueries,
  plan: { overviewRequests: number; overviewRuns: number; overviewBudgetMs: number },
): Promise<ClickHouseOverviewResult> {
  const now = Date.now();
  const generated = await generateRequests(client, database, plan.overviewRequests, now);
  const tables = await rows<{ table: string; rows: string; bytes: string }>(
    client,
    `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
     WHERE database = '${database}' AND active GROUP BY table`,
  );
  const [busiest] = await rows<{ user_id: string; calls: string }>(
    client,
    `SELECT user_id, sum(calls) AS calls FROM ${database}.usage_hourly_tokens FINAL
     GROUP BY user_id ORDER BY calls DESC LIMIT 1`,
  );
  if (!busiest) throw new Error('the generator made no requests');
  const range = { from: new Date(now - 30 * DAY_MS).toISOString(), to: new Date(now).toISOString() };
  const overview = (userId: string | null, granularity?: 'hour') => async () => {
    const answer = await queries.overview({ ...range, userId, ...(granularity ? { granularity } : {}) });
    if (userId === null && answer.totals.calls !== plan.overviewRequests)
      throw new Error(`the overview counts ${answer.totals.calls} of ${plan.overviewRequests} requests`);
  };
  const { overviewRuns: runs, overviewBudgetMs: budget } = plan;
  const settled = await mergesSettled(client, 300_000);
  const allUsers = await time(overview(null), runs, budget);
  const allUsersHourly = await time(overview(null, 'hour'), runs, budget);
  const oneUser = await time(overview(busiest.user_id), runs, budget);
  // The usage log is a secondary figure: ten runs at most.
  const logsOneUser = await time(() => queries.logs({ userId: busiest.user_id }), Math.min(runs, 10), budget);
  const logsAllUsers = await time(() => queries.logs({ userId: null }), Math.min(runs, 10), budget);
  return {
    requests: plan.overviewRequests,
    ...generated,
    rows: Object.fromEntries(tables.map((table) => [table.table, Number(table.rows)])),
    megabytes: tables.reduce((sum, table) => sum + Number(table.bytes), 0) / 1e6,
    busiestUserShare: Number(busiest.calls) / plan.overviewRequests,
    allUsers,
    allUsersHourly,
    oneUser,
    logsOneUser,
    logsAllUsers,
    settled,
  };
}
