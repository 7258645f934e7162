/**
 * @module stores/cluster/clickhouse-rollup-backfill
 * Fills the rollups from the raw tables in one pass, range of users by range of users: once per
 * deployment, at the projector's start, for the rollups a deployment that predates them lacks (the
 * minute slots, and the all-users rollups: until it has run, the all-users overview shows only what
 * was projected since the upgrade), and by the benchmark's data generator for every rollup.
 *
 * The slots matter beyond the overview: the projector sums a recent hour from its minute slots, so a
 * recent hour whose older minutes had no slots would lose them at its next write. Only the hours
 * that keep slots (`slotsKeptFrom`) are filled.
 *
 * Back-filled rows have version 0, so any row the projector recomputes meanwhile wins over them; and
 * a back-fill interrupted or run twice is simply run again, since every statement recomputes whole
 * rows. A row in `rollup_backfills` records that it finished.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import {
  dailyModelRollupInsert,
  dailyTokenRollupInsert,
  keyRollupInsert,
  modelRollupInsert,
  slotRollupInsert,
  tokenRollupInsert,
  userModelRollupInsert,
} from './clickhouse-rollup-sql.ts';
import { identifier, integerLiteral, stringLiteral } from './clickhouse-sql.ts';

export type BackfillLog = (message: string, extra?: Record<string, unknown>) => void;

/** The back-fill of the minute slots (`usage_slots`), from the raw tables. */
const MINUTE_SLOTS = 'minute-slots';
/** The back-fill of the all-users rollups (`usage_hourly_user_models`, `_models`, `_tokens`). */
const ALL_USERS_ROLLUPS = 'all-users-rollups';
/** The back-fill of the daily all-users rollups (`usage_daily_models`, `_tokens`), from the hourly ones. */
const DAILY_ROLLUPS = 'all-users-daily-rollups';

export interface BackfillOptions {
  /** also recompute `usage_hourly` from the raw tables (the generator's case; a deployment has it) */
  includeKeyRollup?: boolean;
  /** run even when it has finished before */
  force?: boolean;
  /** raw requests per statement: bounds each statement's memory and time */
  chunkRequests?: number;
  log?: BackfillLog | undefined;
  /** the start (epoch seconds) of the oldest hour that keeps minute slots (clickhouse-usage-writer.ts) */
  slotsKeptFrom: number;
}

// Statements that run for minutes keep the HTTP connection busy with progress headers, so the
// client's idle-socket timeout does not cut them off.
const longRunning = { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' } as const;

async function rows<Row>(client: ClickHouseClient, query: string): Promise<Row[]> {
  return (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Row[];
}

/** Conditions on `user_id` splitting the users into ranges of about `chunkRequests` raw requests. */
async function userRanges(client: ClickHouseClient, db: string, chunkRequests: number): Promise<string[]> {
  const users = await rows<{ user_id: string; requests: string }>(
    client,
    `SELECT user_id, count() AS requests FROM ${db}.requests GROUP BY user_id ORDER BY user_id`,
  );
  const starts: string[] = [];
  let size = 0;
  for (const user of users) {
    if (starts.length === 0 || size >= chunkRequests) {
      starts.push(user.user_id);
      size = 0;
    }
    size += Number(user.requests);
  }
  // Open at both ends, so users that arrive during the back-fill fall in the first or last range.
  return starts.length === 0
    ? ['1']
    : starts.map((start, index) => {
        const lower = index === 0 ? '1' : `user_id >= ${stringLiteral(start)}`;
        const next = starts[index + 1];
        return next === undefined ? lower : `${lower} AND user_id < ${stringLiteral(next)}`;
      });
}

async function finished(client: ClickHouseClient, db: string, name: string): Promise<boolean> {
  const done = await rows<{ finished: string }>(
    client,
    `SELECT count() AS finished FROM ${db}.rollup_backfills WHERE name = ${stringLiteral(name)}`,
  );
  return Number(done[0]?.finished ?? 0) > 0;
}

/** Runs the back-fills that have not finished before; true when one ran. */
export async function backfillRollups(
  client: ClickHouseClient,
  database: string,
  options: BackfillOptions,
): Promise<boolean> {
  const db = identifier(database);
  const slots = options.force || !(await finished(client, db, MINUTE_SLOTS));
  // Each level comes from the one before: a fresh back-fill of one is followed by the next ones'.
  const hourly = slots || !(await finished(client, db, ALL_USERS_ROLLUPS));
  const daily = hourly || !(await finished(client, db, DAILY_ROLLUPS));
  if (!daily) return false;
  const started = Date.now();
  const run = (query: string) => client.command({ query, clickhouse_settings: longRunning });
  const record = (name: string) =>
    run(`INSERT INTO ${db}.rollup_backfills (name, finished_at) VALUES (${stringLiteral(name)}, now())`);
  let ranges: string[] = [];
  if (hourly) ranges = await userRanges(client, db, options.chunkRequests ?? 2_000_000);
  if (slots) {
    const recent = `started_at >= ${integerLiteral(options.slotsKeptFrom)}`;
    for (const range of ranges) await run(slotRollupInsert(db, `${range} AND ${recent}`, 0));
    await record(MINUTE_SLOTS);
  }
  if (hourly) {
    for (const range of ranges) {
      const raw = { from: 'raw', condition: range } as const;
      if (options.includeKeyRollup) await run(keyRollupInsert(db, raw, 0));
      await Promise.all([run(userModelRollupInsert(db, raw, 0)), run(tokenRollupInsert(db, range, 0))]);
    }
    await run(modelRollupInsert(db, '1', 0));
    await record(ALL_USERS_ROLLUPS);
  }
  await Promise.all([run(dailyModelRollupInsert(db, '1', 0)), run(dailyTokenRollupInsert(db, '1', 0))]);
  await record(DAILY_ROLLUPS);
  options.log?.('rollups back-filled from the raw tables', {
    ranges: ranges.length,
    slots,
    daily_only: !hourly,
    seconds: (Date.now() - started) / 1000,
  });
  return true;
}
