/**
 * The usage log read from SQLite: the shared scenario (test/support/usage-log-scenario.ts), the same
 * one the ClickHouse suite runs, applied twice as a replay would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  checkCacheWriteTokens,
  checkUsageLogFilters,
  filterScenarioEvents,
} from '../../test/support/usage-log-filter-scenario.ts';
import {
  checkChannelUsageScenario,
  checkUsageLogScenario,
  usageLogScenarioEvents,
} from '../../test/support/usage-log-scenario.ts';
import {
  checkUsageLogPages,
  checkUsageLogTotals,
  sentRequests,
  totalsEvents,
} from '../../test/support/usage-log-totals.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

let directory: string;
let database: SqliteDatabase;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'usage-log-'));
  database = openDatabase(directory);
  const writer = new SqliteProjectionWriter(database, new MemoryLookups());
  const events = [...usageLogScenarioEvents(), ...filterScenarioEvents()];
  for (const round of [0, 1]) {
    writer.apply(events.map((event, index) => ({ position: round * events.length + index + 1, event })));
  }
});

afterAll(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

it('finds requests by id, model part and outcome, with their messages, attempts, tokens and count', async () => {
  const queries = new SqliteUsageQueries(database);
  await checkUsageLogScenario((query) => queries.logs(query));
});

it('filters by endpoint, streaming and error type, and shows each request’s cache writes', async () => {
  const queries = new SqliteUsageQueries(database);
  await checkUsageLogFilters((query) => queries.logs(query));
  await checkCacheWriteTokens((query) => queries.logs(query));
});

it('counts the matches of every range and filter, as the ClickHouse store does', async () => {
  const totalsDirectory = mkdtempSync(path.join(tmpdir(), 'usage-log-totals-'));
  const totalsDatabase = openDatabase(totalsDirectory);
  try {
    const writer = new SqliteProjectionWriter(totalsDatabase, new MemoryLookups());
    const sent = sentRequests(Date.now());
    const events = totalsEvents(sent);
    for (const round of [0, 1]) {
      writer.apply(events.map((event, index) => ({ position: round * events.length + index + 1, event })));
    }
    await checkUsageLogTotals((query) => new SqliteUsageQueries(totalsDatabase).logs(query), sent);
    await checkUsageLogPages((query) => new SqliteUsageQueries(totalsDatabase).logs(query), sent);
  } finally {
    totalsDatabase.close();
    rmSync(totalsDirectory, { recursive: true, force: true });
  }
});

it('sums each channel’s calls, errors and latency since a time', async () => {
  const queries = new SqliteUsageQueries(database);
  await checkChannelUsageScenario((since) => queries.channelUsage(since));
});

it('adds the attempts column to a file written before it, keeping its rows', async () => {
  database.exec('ALTER TABLE requests DROP COLUMN attempts');
  const writer = new SqliteProjectionWriter(database, new MemoryLookups());
  const queries = new SqliteUsageQueries(database);
  const [old] = (await queries.logs({ userId: null, request_id: 'log-request-04' })).items;
  expect(old).toMatchObject({ prompt_tokens: 104, attempts: [] });
  const [later] = usageLogScenarioEvents()
    .filter((event) => event.type === 'request.completed')
    .map((event) => ({ ...event, body: { ...event.body, requestId: 'written-after' } }));
  writer.apply([{ position: 100, event: later! }]);
  const [row] = (await queries.logs({ userId: null, request_id: 'written-after' })).items;
  expect(row?.attempts).toHaveLength(1);
});
